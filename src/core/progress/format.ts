/** Human-readable download progress: bytes so far, rate and time left, e.g. "1.2 MB / 2.8 MB (43 %), 640 kB/s, 3 s left". */
export function formatTransfer(received: number, total: number | null, bytesThisRun: number, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (bytesThisRun * 1000) / elapsedMs : 0;
  let text = total ? `${formatBytes(received)} / ${formatBytes(total)} (${Math.floor((received / total) * 100)} %)` : formatBytes(received);
  if (rate > 0) {
    text += `, ${formatBytes(rate)}/s`;
    if (total) text += `, ${formatDuration(((total - received) / rate) * 1000)} left`;
  }
  return text;
}

/** Decimal units, as download tools show them: 999 B, 1.2 kB, 8.1 MB, 2.1 GB. */
export function formatBytes(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000;
    i++;
  }
  return i === 0 ? `${Math.round(n)} B` : `${n < 10 ? n.toFixed(1) : Math.round(n)} ${units[i]}`;
}

/** A duration for people: "3 s", "5 min", "2 h 10 min" (progress lines need no finer grain past a minute). */
export function formatDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return `${Math.max(0, Math.round(seconds))} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  const h = Math.floor(seconds / 3600);
  return `${h} h ${Math.round((seconds - h * 3600) / 60)} min`;
}
