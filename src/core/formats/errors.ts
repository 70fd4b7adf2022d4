/**
 * Errors about user input. Every one names the file and (1-based) line where it applies, quotes the line,
 * and says what to do, so the CLI, the child process and the Problems panel can show it as is.
 */
export type InputErrorCode =
  | 'unreadable' // file missing or not readable
  | 'malformed' // wrong number of columns, bad JSON, empty field
  | 'not-a-number' // score or grade that does not parse
  | 'duplicate' // same (query, document) twice, or same id twice
  | 'missing-field' // a JSON line without a required field
  | 'unknown-format' // could not tell what kind of file this is
  | 'unknown-id' // a reference to a query or document that does not exist
  | 'unwritable' // an output file could not be written (disk full, permission, read-only)
  | 'not-installed'; // an optional part of the installation is missing (onnxruntime-node for neural runs)

export interface InputErrorInit {
  code: InputErrorCode;
  message: string;
  file?: string;
  line?: number;
  text?: string;
  hint?: string;
}

const MAX_QUOTE = 200;

export class InputError extends Error {
  readonly code: InputErrorCode;
  readonly file?: string;
  readonly line?: number;
  readonly text?: string;
  readonly hint?: string;

  constructor(init: InputErrorInit) {
    super(init.message);
    this.name = 'InputError';
    this.code = init.code;
    this.file = init.file;
    this.line = init.line;
    this.text = init.text;
    this.hint = init.hint;
  }

  /** `file:line: message`, then the offending line quoted and the hint, each on its own line. */
  format(): string {
    const where = this.file ? (this.line ? `${this.file}:${this.line}: ` : `${this.file}: `) : '';
    let out = `${where}${this.message}`;
    if (this.text !== undefined) out += `\n  line ${this.line ?? '?'}: ${quote(this.text)}`;
    if (this.hint) out += `\n  ${this.hint}`;
    return out;
  }
}

function quote(text: string): string {
  const shown = text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}…` : text;
  return JSON.stringify(shown);
}

export function isInputError(e: unknown): e is InputError {
  return e instanceof InputError;
}

/** An output write failure as an InputError that says what happened and what to do. */
export function unwritable(path: string, e: unknown, what = 'nothing was left under that name'): InputError | unknown {
  const err = e as NodeJS.ErrnoException;
  const why: Record<string, string> = {
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is exceeded',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'the file system is read-only',
    ENOENT: 'its folder does not exist',
    ENOTDIR: 'a file stands where its folder should be',
    EISDIR: 'a folder of that name exists',
    EIO: 'an input/output error (a failing disk or a lost network drive)',
    EFBIG: 'the file is larger than the file system (or a size limit) allows',
  };
  if (!err || typeof err.code !== 'string' || !why[err.code]) return e;
  return new InputError({
    code: 'unwritable',
    message: `cannot write file: ${why[err.code]} (${err.code}); ${what}`,
    file: path,
    hint:
      err.code === 'ENOSPC' || err.code === 'EDQUOT'
        ? 'Free some space (or write to another folder) and try again.'
        : err.code === 'EIO'
          ? 'Check the disk (or the network drive), then try again.'
          : 'Choose a path you can write to (a file, in a folder) and try again.',
  });
}
