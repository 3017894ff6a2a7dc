/**
 * CSV as RFC 4180 writes it: a cell is quoted only when it holds a quote, comma or line break, and quotes inside
 * are doubled. Dates are written as ISO 8601 text, objects as JSON, NULL as an empty cell.
 */

/** Write one value as a CSV cell. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text =
    value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Write one CSV line (with its line break) of `columns`, read from `row`. */
export function csvLine(columns: readonly string[], row: Readonly<Record<string, unknown>>): string {
  return `${columns.map((c) => csvCell(row[c])).join(',')}\n`;
}
