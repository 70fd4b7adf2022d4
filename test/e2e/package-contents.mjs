// `npm run package:all` ends here: checks every platform-specific .vsix that .ci/package.mjs wrote (target
// platform, only what runs, exactly its platform's onnxruntime-node binaries; the universal one: no target and no
// onnxruntime at all) and prints the sizes.
// Usage: node test/e2e/package-contents.mjs [TARGET...]   (default: every target of .ci/package.mjs)
import { existsSync, statSync } from 'node:fs';
import { TARGETS, vsixPath } from '../../.ci/package.mjs';
import { checkVsix } from './package-check.mjs';

const targets = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(TARGETS);
let failed = 0;
for (const target of targets) {
  const vsix = vsixPath(target);
  if (!existsSync(vsix)) {
    console.log(`✖ ${target}: ${vsix} is missing: run \`npm run package:all\``);
    failed++;
    continue;
  }
  const [platform, arch] = TARGETS[target].universal ? [] : target.split('-');
  const { problems, files } = await checkVsix(vsix, { target, platform, arch, expectedBinaries: TARGETS[target].files });
  const size = `${(statSync(vsix).size / 2 ** 20).toFixed(1)} MiB, ${files.length} files`;
  if (problems.length) {
    failed++;
    console.log(`✖ ${target} (${size}):\n  ${problems.join('\n  ')}`);
  } else {
    console.log(`✔ ${target} (${size}): onnxruntime-node ${TARGETS[target].files.join(', ') || (TARGETS[target].universal ? 'none (universal: no neural runs)' : 'none (onnxruntime-node ships no binary for this platform)')}`);
  }
}
console.log(`package contents: ${targets.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
