/**
 * A CSV cell, for every table the command line writes (RFC 4180, CRLF rows): a number as it is; text always
 * quoted, so that a `;`-separated locale still reads one cell, and never run as a formula (OWASP CSV injection:
 * a leading = + - @ TAB or CR gets a ' before it). The one place to change when cells change.
 */
export function csvCell(v: string | number): string {
  if (typeof v === 'number') return String(v);
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return `"${safe.replace(/"/g, '""')}"`;
}
