/**
 * Read MySQL's and MariaDB's datetime text, `YYYY-MM-DD HH:MM:SS` with up to six fraction digits, as UTC: the Date
 * `new Date(text + 'Z')` gives (MikroORM's parse of such a column with its `timezone` at `Z`), at a fraction of the
 * general date parser's cost (it runs once per value of an export). Undefined for any text outside the plain range
 * (another shape, a year before 1000, a field out of range, a day past the month's end), which the general parser
 * then answers as MikroORM would.
 */
export function utcDateText(text: string): Date | undefined {
  const n = text.length;
  if (n < 19 || n === 20 || n > 26) return undefined;
  if (!punctuated(text, n)) return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  // The parser keeps milliseconds: the first three fraction digits, the rest dropped (but still digits).
  const kept = Math.min(n, 23);
  const fraction = n > 19 ? digits(text, 20, kept) : 0;
  if (n > 23 && digits(text, 23, n) < 0) return undefined;
  if (year < 1000 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59)
    return undefined;
  if (second < 0 || second > 59 || fraction < 0) return undefined;
  const ms = n > 19 ? fraction * 10 ** (3 - (kept - 20)) : 0;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
  return date.getUTCDate() === day ? date : undefined;
}

/** `-` `-` ` ` `:` `:` at their places, and `.` before a fraction. */
function punctuated(text: string, n: number): boolean {
  return (
    text.charCodeAt(4) === 45 &&
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 32 &&
    text.charCodeAt(13) === 58 &&
    text.charCodeAt(16) === 58 &&
    (n === 19 || text.charCodeAt(19) === 46)
  );
}

/** The decimal number of text[from, to), or -1 when a character is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}
