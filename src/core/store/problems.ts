import { isInputError } from '../formats/errors';

/**
 * A problem found while indexing, in the shape the extension maps onto a diagnostic. `line` is 1-based;
 * 0 means the whole file. The message says what is wrong and what to do.
 */
export interface Problem {
  file: string;
  line: number;
  severity: 'error' | 'warning' | 'info';
  message: string;
}

/** An InputError (or anything else thrown while reading a file) as a problem on that file. */
export function problemFrom(file: string, e: unknown): Problem {
  if (isInputError(e)) {
    const text = e.text !== undefined ? ` (line: ${JSON.stringify(e.text.slice(0, 120))})` : '';
    return {
      file: e.file ?? file,
      line: e.line ?? 0,
      severity: 'error',
      message: `${e.message}${text}${e.hint ? `. ${e.hint}` : ''}`,
    };
  }
  return { file, line: 0, severity: 'error', message: `could not index: ${(e as Error).message ?? String(e)}` };
}
