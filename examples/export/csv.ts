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

/**
 * Write one CSV line (with its line break) of `columns`, read from `row`; a dotted column (`author.name`) reads a
 * related object's key, and is empty when the object is null.
 */
export function csvLine(columns: readonly string[], row: Readonly<Record<string, unknown>>): string {
  return `${columns.map((c) => csvCell(valueAt(row, c))).join(',')}\n`;
}

/** A cell's value: the key of a column, followed through related objects (`author.name`); absent under a null one. */
export function valueAt(row: Readonly<Record<string, unknown>>, column: string): unknown {
  let value: unknown = row;
  for (const key of column.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
