/**
 * CSV as every export writes it (RFC 4180, one module for all: the results table, `irw compare`). A field that
 * is a plain decimal number (or empty) is written bare; every other field is quoted, whatever separator a spreadsheet
 * splits on (`;` in de, fr, nl locales), and a text starting with = + - @ TAB or CR, which a spreadsheet would
 * run as a formula, gets a leading apostrophe first (OWASP's advice against CSV injection).
 */
export function csvField(value: string | number): string {
  const s = String(value);
  if (s === '' || NUMBER.test(s)) return s;
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** One record: the fields, comma-separated, ended by CRLF (RFC 4180). */
export function csvRecord(fields: readonly (string | number)[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i;
