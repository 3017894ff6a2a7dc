import type { Platform } from '@mikro-orm/core';
import { QueryOrder, raw } from '@mikro-orm/sql';
import type { BoundSchema, ResolvedAggregate, ResolvedSortTerm } from '../bind/types.ts';
import type { Dialect } from '../dialect/index.ts';
import { errorAtPosition } from '../errors.ts';
import { type JoinAliasOf, toManySort } from './joins.ts';

/**
 * One key of the effective sort: a column, the table alias it belongs to, its direction, and whether it can hold
 * NULL (a key reached through a LEFT JOIN can, even when its column cannot).
 */
export interface SortKey {
  readonly column: string;
  /** The alias of the table the column belongs to; undefined means the query's root alias. */
  readonly alias?: string;
  readonly direction: 'asc' | 'desc';
  readonly nullable: boolean;
  /**
   * NULLs sort first: the client asked (`:nullsfirst`), or a backward page mirrors NULLS LAST (keyset/backward.ts).
   * Absent means NULLS LAST, the default order.
   */
  readonly nullsFirst?: boolean;
  /** Case-insensitive (`:ci`): ordered and compared by the folded value (see sortExpression). */
  readonly caseInsensitive?: boolean;
  /** The requested term this key comes from; undefined for an appended primary-key tie-breaker. */
  readonly term?: ResolvedSortTerm;
  /**
   * An aggregate key: the SQL it orders and seeks by, in place of a quoted column (a marker standing for the
   * correlated sub-query, see orm/deferred-sql.ts); `column` then names the aggregate, for identity only.
   */
  readonly expression?: string;
}

/** Build the SQL of an aggregate sort key (plan-query.ts: the sub-query behind a marker). */
export type AggregateSql = (aggregate: ResolvedAggregate) => string;

/** Quote a key's column on its table (`"b"."price"`), or give an aggregate key's expression. */
export function keySql(platform: Platform, key: SortKey, rootAlias: string): string {
  return key.expression ?? platform.quoteIdentifier(`${key.alias ?? rootAlias}.${key.column}`);
}

/**
 * Compute the effective sort: the requested keys in order, then every root primary-key column not already
 * present, ascending. The result is a total order, which keyset pagination relies on. Keys through to-one
 * relations take the alias of their LEFT JOIN from `joinAliasOf` and are nullable whatever their column says.
 */
export function effectiveSort(
  bound: BoundSchema,
  terms: readonly ResolvedSortTerm[],
  joinAliasOf?: JoinAliasOf,
  aggregateSql?: AggregateSql,
): readonly SortKey[] {
  const keys: SortKey[] = [];
  const seen = new Set<string>();
  const primary = new Set(bound.primaryKey.map((k) => k.column));
  for (const term of terms) {
    if (term.aggregate) {
      // An aggregate key (`-reviews/count()`): its sub-query, or where only the key's shape matters, a stand-in.
      const a = term.aggregate;
      if (seen.has(`agg:${a.text}`)) continue;
      seen.add(`agg:${a.text}`);
      keys.push({
        column: a.text,
        direction: term.direction,
        nullable: a.nullable,
        ...(a.nullable && term.nullsFirst ? { nullsFirst: true } : {}),
        term,
        expression: aggregateSql ? aggregateSql(a) : `aggregate:${a.text}`,
      });
      continue;
    }
    const { relations, field, span } = term.target;
    for (const relation of relations) if (relation.cardinality !== 'one') throw toManySort(relation, span);
    if (term.target.variable !== undefined || (relations.length > 0 && !joinAliasOf))
      throw errorAtPosition('invalid_relationship', 'this sort key cannot be planned here', 'sort', span);
    const alias = relations.length > 0 && joinAliasOf ? joinAliasOf(relations) : undefined;
    const id = `${alias ?? ''}.${field.column}`;
    if (seen.has(id)) continue;
    seen.add(id);
    // A LEFT JOIN gives NULL when the related row is missing or filtered out, even for a NOT NULL column.
    const nullable = alias !== undefined || (field.nullable && !primary.has(field.column));
    keys.push({
      column: field.column,
      ...(alias === undefined ? {} : { alias }),
      direction: term.direction,
      nullable,
      // A key that cannot be NULL orders alike in both placements: `:nullsfirst` changes nothing there.
      ...(nullable && term.nullsFirst ? { nullsFirst: true } : {}),
      ...(term.caseInsensitive ? { caseInsensitive: true } : {}),
      term,
    });
  }
  for (const key of bound.primaryKey) {
    const id = `.${key.column}`;
    if (seen.has(id)) continue;
    seen.add(id);
    keys.push({ column: key.column, direction: 'asc', nullable: false });
  }
  return keys;
}

type OrderEntry = Record<string, QueryOrder>;

/**
 * Build the `orderBy()` argument for sort keys on the root `alias`. NULLs sort last in both directions unless the
 * key says first (`:nullsfirst`, or a backward page's mirrored order, see keyset/backward.ts):
 * nullable columns say so (`asc nulls last`); NOT NULL columns get a plain `asc`/`desc` so an index can serve the
 * order, backward scans included. MySQL and MariaDB have no NULLS LAST: there NULLs are the smallest value, so
 * `desc nulls last` and `asc nulls first` are their plain order (an index serves it), and only the other two get
 * MikroORM's emulation, a leading `col is null` (`col is not null`) term that no index serves.
 */
export function orderByOf(platform: Platform, dialect: Dialect, alias: string, keys: readonly SortKey[]): OrderEntry[] {
  return orderEntries(orderTerms(platform, dialect, alias, keys));
}

/** The `orderBy()` argument for terms from orderTerms(). */
export function orderEntries(terms: readonly (readonly [sql: string, order: QueryOrder])[]): OrderEntry[] {
  return terms.map(([sql, order]) => ({ [raw(sql)]: order }) as OrderEntry);
}

/** The terms orderByOf() orders by, as SQL and direction: what the order of a planned query depends on. */
export function orderTerms(
  platform: Platform,
  dialect: Dialect,
  alias: string,
  keys: readonly SortKey[],
): [sql: string, order: QueryOrder][] {
  const nullsLowest = dialect.emulatesNullsOrder;
  return keys.map((key) => [sortExpression(dialect, key, keySql(platform, key, alias)), direction(key, nullsLowest)]);
}

/**
 * The expression a key orders and seeks by, from its quoted column (or a cursor value's placeholder): the column, or
 * for a case-insensitive key where the collation does not already compare caselessly, its letters A–Z folded to lower
 * case (`lower("b"."title" collate "C")` on PostgreSQL, `lower("b"."title")` on SQLite).
 */
export function sortExpression(dialect: Dialect, key: Pick<SortKey, 'caseInsensitive'>, sql: string): string {
  return key.caseInsensitive && !dialect.collationSortsCaselessly ? dialect.foldedColumn(sql) : sql;
}

/**
 * Tell whether a nullable key's NULL placement needs more than a plain `asc`/`desc` on a dialect where NULLs are
 * the smallest value (MySQL, MariaDB): NULLs last ascending, or first descending.
 */
export function emulatesNulls(key: Pick<SortKey, 'nullable' | 'direction' | 'nullsFirst'>): boolean {
  return key.nullable && (key.direction === 'asc') !== (key.nullsFirst === true);
}

function direction(key: SortKey, nullsLowest: boolean): QueryOrder {
  if (!key.nullable || (nullsLowest && !emulatesNulls(key)))
    return key.direction === 'asc' ? QueryOrder.ASC : QueryOrder.DESC;
  if (key.nullsFirst) return key.direction === 'asc' ? QueryOrder.ASC_NULLS_FIRST : QueryOrder.DESC_NULLS_FIRST;
  return key.direction === 'asc' ? QueryOrder.ASC_NULLS_LAST : QueryOrder.DESC_NULLS_LAST;
}
