/** A dataset download or unpacking that failed, with what happened and what to do (the CLI prints format()). */
export class DatasetError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly file?: string,
  ) {
    super(message);
    this.name = 'DatasetError';
  }

  format(): string {
    return `${this.file ? `${this.file}: ` : ''}${this.message}${this.hint ? `\n  ${this.hint}` : ''}`;
  }
}

export function isDatasetError(e: unknown): e is DatasetError {
  return e instanceof DatasetError;
}

/**
 * A file system error met while getting a dataset (disk full, permissions, a file where a folder goes) as a
 * DatasetError naming the file and what to do; anything else is returned as it is.
 */
export function fileSystemError(e: unknown): unknown {
  const err = e as NodeJS.ErrnoException;
  if (e instanceof DatasetError || typeof err?.code !== 'string' || !err.syscall) return e;
  const full = err.code === 'ENOSPC' || err.code === 'EDQUOT';
  const why = full ? 'the disk is full' : err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS' ? 'permission denied' : err.code === 'ENOTDIR' || err.code === 'EEXIST' || err.code === 'EISDIR' ? 'a file stands where a folder should be, or a folder where a file should be' : err.message;
  return new DatasetError(
    `${err.syscall} failed: ${why} (${err.code})`,
    full ? 'Free some space (or choose another --dir), then run the same command again: what was downloaded is kept.' : 'Fix the folder (or choose another --dir), then run the same command again.',
    err.path,
  );
}
