// Entry the extension host loads (extensionTestsPath): runs every compiled *.test.js found under this folder with
// mocha's TDD interface. The harness (test/vscode/run.mjs) and .vscode/launch.json compile it to out/integration/.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? testFiles(p) : e.name.endsWith('.test.js') ? [p] : [];
  });
}

export function run(): Promise<void> {
  // The harness reads the reporter's "N passing" / "N failing" lines from the forwarded output.
  const mocha = new Mocha({ ui: 'tdd', reporter: 'spec', color: false, timeout: 60_000 });
  const grep = process.env.IRW_TEST_GREP;
  if (grep) mocha.grep(grep);
  const files = testFiles(__dirname).sort();
  for (const file of files) mocha.addFile(file);
  // The code-server harness forwards the workbench's log from this line on (test/vscode/code-server.mjs).
  console.log(`irw-integration: running ${files.length} test file(s)`);
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
  });
}
