import { dateTimeText, isDateTime, padFraction, utcDateOfBytes } from './date-bytes.ts';

/** Column metadata mysql2 passes with a result (the members read here). */
export interface MysqlField {
  readonly name: string;
  readonly columnType: number;
  readonly decimals: number;
}

// mysql2 column types whose binary-protocol values differ from the text protocol's (mysql2/lib/constants/types.js).
const FLOAT = 4;
const TIME = 11;

/**
 * Make prepared-statement rows hold what the text protocol (MikroORM's own qb.execute()) gives, so both paths map to
 * the same entities: mysql2 reads a FLOAT as its exact single-precision value (0.10000000149011612) where the server
 * prints it as text (MariaDB: 6 significant digits, `0.1`; MySQL 8: the shortest text that is the same float), and
 * drops the zeros of a DATETIME/TIMESTAMP/TIME fraction the column declares (`10:00:00` for `10:00:00.000`). DATETIME and
 * TIMESTAMP values read as bytes (readDatesAsBytes()) are written as that same text here, or, in the `utc` columns
 * (readDatesAsUtc()), as the Date the row writer would read that text to, where it would read one.
 */
export function textLike(
  rows: unknown[],
  fields: MysqlField[] | undefined,
  mariaDb: boolean,
  utc?: ReadonlySet<string>,
): unknown[] {
  const fixes: [string, (v: unknown) => unknown][] = [];
  for (const field of fields ?? []) {
    if (field.columnType === FLOAT)
      fixes.push([field.name, (v) => (typeof v === 'number' ? floatText(v, mariaDb) : v)]);
    else if (isDateTime(field.columnType)) {
      const { decimals } = field;
      const pad = decimals > 0 && decimals <= 6;
      // Bytes where readDatesAsBytes() had the statement read them so; text (padded here) otherwise.
      const text = (v: unknown) =>
        v instanceof Uint8Array
          ? dateTimeText(v, decimals)
          : pad && typeof v === 'string'
            ? padFraction(v, decimals)
            : v;
      const utcDate = (v: unknown) => (v instanceof Uint8Array && utcDateOfBytes(v, decimals)) || text(v);
      fixes.push([field.name, utc?.has(field.name) ? utcDate : text]);
    } else if (field.columnType === TIME && field.decimals > 0 && field.decimals <= 6)
      fixes.push([field.name, (v) => (typeof v === 'string' ? padFraction(v, field.decimals) : v)]);
  }
  if (fixes.length === 0) return rows;
  for (const row of rows as Record<string, unknown>[])
    for (const [name, fix] of fixes) if (name in row) row[name] = fix(row[name]);
  return rows;
}

function floatText(v: number, mariaDb: boolean): number {
  if (!Number.isFinite(v)) return v;
  if (mariaDb) return Number(v.toPrecision(6));
  for (let digits = 1; digits < 9; digits++) {
    const shorter = Number(v.toPrecision(digits));
    if (Math.fround(shorter) === v) return shorter;
  }
  return Number(v.toPrecision(9));
}
