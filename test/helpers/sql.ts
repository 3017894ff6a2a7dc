/**
 * Expected SQL, stated once and rendered per dialect. A test writes the statement it expects as a `sql` template
 * whose dialect-neutral text is literal and whose varying pieces are typed parts: `id('p.stock')` (a quoted,
 * dotted identifier), `param` (a driver placeholder), `nullsLast('p.stock', 'asc')` / `nullsFirst(…)` (an ORDER BY
 * term whose NULL placement a dialect may emulate). Each dialect renders those parts from its row in `STYLES`, the
 * only place that says how the dialects differ; nothing rewrites a finished string. Where the dialects write a
 * piece differently beyond that (GLOB against LIKE, MariaDB's expanded keyset), the test states every dialect's
 * text in a `{ postgresql, sqlite, mariadb }` record. Three full strings per row (Kysely's way) would triple the
 * long relationship statements for nothing but quote characters, so the parts carry that difference instead.
 *
 * @example
 *   expectSql(qb.getQuery(), sql`select ${id('p')}.* from ${id('product')} as ${id('p')} limit ?`, dialect)
 *   // PostgreSQL: select "p".* from "product" as "p" limit ?    SQLite, MariaDB: select `p`.* from `product` …
 */
import * as assert from 'uvu/assert';
import type { Dialect } from './db.ts';

/** How a dialect writes the pieces expected SQL varies in. */
interface SqlStyle {
  /** The character an identifier is quoted with. */
  readonly quote: string;
  /** Whether driver placeholders are numbered (`$1`, `$2`) rather than each a `?`. */
  readonly numberedParams: boolean;
  /** Whether ORDER BY takes `nulls last` / `nulls first`; without it NULL sorts lowest and placement is emulated. */
  readonly nullsClause: boolean;
}

const STYLES: Readonly<Record<Dialect, SqlStyle>> = {
  postgresql: { quote: '"', numberedParams: true, nullsClause: true },
  sqlite: { quote: '`', numberedParams: false, nullsClause: true },
  mariadb: { quote: '`', numberedParams: false, nullsClause: false },
};

interface Identifier {
  readonly kind: 'id';
  readonly path: readonly string[];
}

interface Placeholder {
  readonly kind: 'param';
}

interface OrderTerm {
  readonly kind: 'order';
  readonly column: Identifier;
  readonly direction: 'asc' | 'desc';
  readonly nulls: 'first' | 'last';
}

/** A dialect-neutral statement or fragment: literal text and typed parts, in order. */
export interface Sql {
  readonly kind: 'sql';
  readonly parts: readonly SqlPart[];
}

/** Each dialect's own text, where they write a piece differently beyond quotes, placeholders and NULL order. */
export type PerDialectSql = Readonly<Record<Dialect, Sql | string>>;

type SqlPart = string | Identifier | Placeholder | OrderTerm | Sql | PerDialectSql;

/** What a test expects: one neutral statement, or each dialect's own. */
export type ExpectedSql = Sql | string | PerDialectSql;

/**
 * Build a neutral statement from literal text and parts (`?` written as text stays `?` on every dialect). A
 * per-dialect record is a part too, so a row can state only the piece that differs.
 */
export function sql(text: TemplateStringsArray, ...parts: readonly Exclude<SqlPart, string>[]): Sql {
  const all: SqlPart[] = [];
  text.forEach((chunk, i) => {
    all.push(chunk);
    if (i < parts.length) all.push(parts[i]!);
  });
  return { kind: 'sql', parts: all };
}

/** Name a quoted identifier by its dotted path (`'p.stock'` is the column `stock` of the alias `p`). */
export function id(path: string): Identifier {
  return { kind: 'id', path: path.split('.') };
}

/** A driver placeholder, as the statement reaches the database (a query builder's own SQL writes a plain `?`). */
export const param: Placeholder = { kind: 'param' };

/** Order by a nullable column with its NULLs after every value. */
export function nullsLast(path: string, direction: 'asc' | 'desc'): OrderTerm {
  return { kind: 'order', column: id(path), direction, nulls: 'last' };
}

/** Order by a nullable column with its NULLs before every value. */
export function nullsFirst(path: string, direction: 'asc' | 'desc'): OrderTerm {
  return { kind: 'order', column: id(path), direction, nulls: 'first' };
}

/** The head of a query builder's select-all statement: `select "p".* from "product" as "p"`. */
export function selectFrom(table: string, alias: string): Sql {
  return sql`select ${id(alias)}.* from ${id(table)} as ${id(alias)}`;
}

/** Render expected SQL in a dialect; numbered placeholders count from `firstParam`. */
export function renderSql(expected: ExpectedSql, dialect: Dialect, firstParam = 1): string {
  const style = STYLES[dialect];
  let next = firstParam;
  const quote = (path: readonly string[]) => path.map((name) => style.quote + name + style.quote).join('.');
  const render = (part: SqlPart): string => {
    if (typeof part === 'string') return part;
    if (!isNeutral(part)) return render(part[dialect]);
    switch (part.kind) {
      case 'sql':
        return part.parts.map(render).join('');
      case 'id':
        return quote(part.path);
      case 'param':
        return style.numberedParams ? `$${next++}` : '?';
      case 'order':
        return orderTerm(quote(part.column.path), part, style);
    }
  };
  return render(expected);
}

/** Where NULL sorts lowest and there is no clause, NULLs go last by a leading `is null` key only when ascending. */
function orderTerm(column: string, term: OrderTerm, style: SqlStyle): string {
  if (style.nullsClause) return `${column} ${term.direction} nulls ${term.nulls}`;
  const lowFirst = (term.direction === 'asc') === (term.nulls === 'first');
  if (lowFirst) return `${column} ${term.direction}`;
  return `${column} is ${term.nulls === 'last' ? '' : 'not '}null, ${column} ${term.direction}`;
}

function isNeutral(part: SqlPart): part is Exclude<SqlPart, PerDialectSql> {
  return typeof part === 'string' || 'kind' in part;
}

/** Assert that `actual` is exactly the expected SQL as `dialect` writes it. */
export function expectSql(actual: string, expected: ExpectedSql, dialect: Dialect): void {
  assert.is(actual, renderSql(expected, dialect));
}

/** Assert that `actual` contains the expected fragment as `dialect` writes it. */
export function expectSqlIncludes(actual: string, expected: ExpectedSql, dialect: Dialect, firstParam = 1): void {
  const fragment = renderSql(expected, dialect, firstParam);
  assert.ok(actual.includes(fragment), `expected ${fragment}\n    in ${actual}`);
}
