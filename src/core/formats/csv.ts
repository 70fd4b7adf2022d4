/**
 * CSV as every export writes it (RFC 4180, one module for all: the results table, `irw compare`, `irw eval`). The
 * field's type decides, never its content: a number is written bare, an absent field (null) empty, and text is
 * always quoted, whatever separator a spreadsheet splits on (`;` in de, fr, nl locales); text starting with
 * = + - @ TAB or CR, which a spreadsheet would run as a formula, gets a leading apostrophe first (OWASP's advice
 * against CSV injection).
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** One record: the fields, comma-separated, ended by CRLF (RFC 4180). */
export function csvRecord(fields: readonly (string | number | null)[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}
