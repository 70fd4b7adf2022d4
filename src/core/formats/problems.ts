import { isInputError, type InputError } from './errors';

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

/** How many bad lines of one file are listed in the Problems panel; one more problem gives the total. */
export const MAX_BAD_LINES = 100;

/**
 * Every bad line of a file that failed to read (`first`: what the strict read threw), found in one more pass
 * by `read`, which passes each bad line to its callback and goes on. The first MAX_BAD_LINES become problems,
 * each followed by `consequence`; when there are more than one, the first also gives the count, so the user
 * fixes them all before saving once. One problem per bad line and no other: a count of its own would be one
 * more in the Problems badge, pinned to line 1, which is good. A failure that is not about lines (unreadable,
 * empty) is the one problem `first` gives.
 */
export function badLineProblems(file: string, first: unknown, read: (onBadLine: (e: InputError) => void) => void, consequence: string): Problem[] {
  const listed: Problem[] = [];
  let total = 0;
  try {
    read((e) => {
      total++;
      if (listed.length < MAX_BAD_LINES) listed.push(problemFrom(file, e));
    });
  } catch {
    // A run whose every line is bad ends with "no result lines": the bad lines say more.
  }
  if (total === 0) listed.push(problemFrom(file, first));
  for (const p of listed) p.message += consequence;
  if (total > 1) {
    const shown = total > MAX_BAD_LINES ? `; the first ${MAX_BAD_LINES} are listed` : '';
    listed[0].message += ` ${total.toLocaleString('en-US')} bad lines in this file${shown}.`;
  }
  return listed;
}
