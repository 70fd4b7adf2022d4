/**
 * Where `irw eval` writes: this process's standard output and error, or, in the resident evaluator
 * (resident/server.ts), the client's that asked. Requests there run one at a time, so one sink is current.
 */
export interface Output {
  /** Text, or bytes (ids are written back as the bytes they were read as). */
  out(data: string | Uint8Array): void;
  err(text: string): void;
  /** Whether standard output is a terminal (control characters in ids are then shown, not sent). */
  readonly outIsTTY: boolean;
}

const processOutput: Output = {
  out: (data) => void process.stdout.write(data),
  err: (text) => void process.stderr.write(text),
  get outIsTTY() {
    return process.stdout.isTTY === true;
  },
};

let current: Output = processOutput;

export const io: Output = {
  out: (data) => current.out(data),
  err: (text) => current.err(text),
  get outIsTTY() {
    return current.outIsTTY;
  },
};

/** Runs `f` with `output` as the current sink. */
export async function withOutput<T>(output: Output, f: () => Promise<T>): Promise<T> {
  current = output;
  try {
    return await f();
  } finally {
    current = processOutput;
  }
}
