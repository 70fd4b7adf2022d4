import { formatDuration } from './format';

/**
 * Progress of long work for people, on a terminal or in a log. On a terminal: one line rewritten in place. Elsewhere
 * (a file, a pipe, CI): a line when a stage starts, when it ends, and at least every `everyMs` in between, with
 * counts, rate and time left, e.g. "encoding documents 1,024/5,183, 14 docs/s, 5 min left".
 */
export interface ProgressSink {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ReporterOptions {
  /** Longest gap between two lines in a log (default 3000 ms). */
  everyMs?: number;
  now?: () => number;
}

interface State {
  label: string;
  unit?: string;
  done: number;
  total?: number;
  started: number;
}

export class ProgressReporter {
  private state: State | null = null;
  private lastLine = -Infinity;
  private timer: NodeJS.Timeout | null = null;
  private readonly everyMs: number;
  private readonly now: () => number;

  constructor(
    private readonly sink: ProgressSink,
    options: ReporterOptions = {},
  ) {
    this.everyMs = options.everyMs ?? 3000;
    this.now = options.now ?? (() => performance.now());
  }

  /** Reports `done` (of `total`) in a stage; a new label starts a new stage. */
  update(label: string, done: number, total?: number, unit?: string): void {
    const t = this.now();
    const fresh = this.state?.label !== label;
    if (fresh) this.state = { label, unit, done, total, started: t };
    else Object.assign(this.state!, { done, total: total ?? this.state!.total });
    if (this.sink.isTTY) {
      this.sink.write(`\r\x1b[K${this.line(t)}`);
      return;
    }
    const finished = total !== undefined && done >= total && done > 0;
    if (fresh || finished || t - this.lastLine >= this.everyMs) this.print(t);
    this.arm();
  }

  /** Ends the display: clears the terminal line, stops the timer. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.sink.isTTY && this.state) this.sink.write('\r\x1b[K');
    this.state = null;
  }

  /** The current line's text (for tests and the terminal). */
  line(t = this.now()): string {
    const s = this.state;
    if (!s) return '';
    const elapsed = (t - s.started) / 1000;
    const parts: string[] = [];
    if (s.unit) {
      parts.push(s.total !== undefined ? `${count(s.done)}/${count(s.total)}` : `${count(s.done)} ${s.unit}`);
      const rate = elapsed > 0.5 && s.done > 0 ? s.done / elapsed : 0;
      if (rate > 0) parts.push(`${count(rate < 10 ? Math.round(rate * 10) / 10 : Math.round(rate))} ${s.unit}/s`);
      if (rate > 0 && s.total !== undefined && s.done < s.total) parts.push(`${formatDuration(Math.max(1000, ((s.total - s.done) / rate) * 1000))} left`);
    } else if (elapsed >= 1) {
      parts.push(`${formatDuration(elapsed * 1000)} so far`);
    }
    return parts.length ? `${s.label} ${parts.join(', ')}` : s.label;
  }

  private print(t: number): void {
    this.lastLine = t;
    this.sink.write(`${this.line(t)}\n`);
  }

  /** In a log, a stage that reports nothing for a while still gets a line every `everyMs`. */
  private arm(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      const t = this.now();
      if (this.state && t - this.lastLine >= this.everyMs) this.print(t);
    }, this.everyMs);
    this.timer.unref();
  }
}

/**
 * `n` with thousands separators, as toLocaleString('en-US') writes counts and one-decimal rates; by hand, since
 * the first toLocaleString of a process loads ICU's number formatting (~12 ms of a 0.5 s `irw run`).
 */
export function count(n: number): string {
  const [whole, frac] = String(n).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}
