import { checkPaired } from './paired';

export interface WinTieLoss {
  wins: number;
  ties: number;
  losses: number;
}

/** Queries where a beats, ties or loses to b; differences under `epsilon` (float noise) are ties. */
export function winTieLoss(a: ArrayLike<number>, b: ArrayLike<number>, epsilon = 1e-9): WinTieLoss {
  const n = checkPaired(a, b);
  const r = { wins: 0, ties: 0, losses: 0 };
  for (let i = 0; i < n; i++) {
    const d = a[i] - b[i];
    if (d > epsilon) r.wins++;
    else if (d < -epsilon) r.losses++;
    else r.ties++;
  }
  return r;
}
