import type { ReadReport } from '../core/formats/beir';
import type { InputError } from '../core/formats/errors';

/** Skipped lines shown per file; the rest are counted. */
const SHOWN = 100;

/**
 * The CLI's report of what the BEIR readers skip: each bad line as `warning: skipped file:line: why` (the first
 * 100 per file), then the count. `pause` clears a progress line first.
 */
export function stderrReadReport(command: string, pause: () => void): ReadReport {
  const shown = new Map<string, number>();
  const write = (text: string) => {
    pause();
    process.stderr.write(`${command}: ${text}\n`);
  };
  return {
    skipped(e: InputError) {
      const file = e.file ?? '?';
      const n = (shown.get(file) ?? 0) + 1;
      shown.set(file, n);
      if (n <= SHOWN) write(`warning: skipped ${file}:${e.line ?? '?'}: ${e.message}`);
    },
    notice(file, message) {
      write(`note: ${file} ${message}`);
    },
    finished(file, skipped) {
      const hidden = skipped - Math.min(skipped, SHOWN);
      write(`warning: skipped ${skipped} bad line${skipped === 1 ? '' : 's'} of ${file}${hidden ? ` (${hidden} not shown)` : ''}; the rest was read`);
    },
  };
}
