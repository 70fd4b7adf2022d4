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
