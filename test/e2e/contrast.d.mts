// Types of contrast.mjs, for the webview test that checks it.
import type { Frame } from 'playwright-core';

export interface LowContrast {
  text: string;
  color: string;
  background: string;
  ratio: number;
  needed: number;
}

export function lowContrast(frame: Frame, root?: string): Promise<LowContrast[]>;
