// Types of timings.mjs, for the webview tests that use it on their pages.
import type { Frame } from 'playwright-core';

export interface Shown {
  versions: { version: number; t: number }[];
  pairs: { pair: string; t: number }[];
  keys: { key: string; t: number }[];
  /** Host events received since recording started. */
  events: number;
  version: number;
  pair: string | undefined;
}

export function recordShown(frame: Frame): Promise<void>;
export function shown(frame: Frame): Promise<Shown>;
