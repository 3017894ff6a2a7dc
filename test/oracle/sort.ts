/**
 * The reference sorter: the requested keys in order, NULLS LAST in both directions (first where a key says
 * `:nullsfirst`), `:ci` keys compared with A–Z folded, then every primary-key column not already requested,
 * ascending; values ordered as the database orders them (values.ts, DbModel). A key reached through a to-one
 * relation whose row does not exist is NULL (a LEFT JOIN finds nothing). An aggregate key is the aggregate's value:
 * a count (0 without related rows), or a sum, average, minimum or maximum (NULL without related values).
 */
import { aggregateValue, follow, type GenAggregate } from './evaluate.ts';
import { printAggregate, printFilter } from './filter.ts';
import type { EntitySpec, FieldSpec, RelationSpec, Row, Visibility } from './model.ts';
import { BINARY, compareValues, type DbModel, type Value } from './values.ts';

/**
 * One requested sort key: to-one hops from the root, a field, a direction, and its modifiers: `ci` (`:ci`, string
 * fields) and `nulls` (`:nullsfirst`, `:nullslast`; last when absent).
 */
export interface GenSortTerm {
  readonly hops: readonly RelationSpec[];
  readonly field: FieldSpec;
  /**
   * An aggregate key (`-reviews/count()`, `author/books/avg(price):nullsfirst`): its value is the aggregate's
   * (evaluate.ts aggregateValue); `hops` are then the aggregate's, ending with the to-many relation, and `field` the
   * reduced field (for count, an integer field standing for the count).
   */
  readonly aggregate?: GenAggregate;
  readonly direction: 'asc' | 'desc';
  readonly ci?: boolean;
  readonly nulls?: 'first' | 'last';
}

/** Render sort terms as the `sort` parameter writes them. */
export function printSort(terms: readonly GenSortTerm[]): string {
  return terms
    .map((t) => {
      const path = t.aggregate
        ? printAggregate(t.aggregate, (f) => printFilter(f))
        : [...t.hops.map((h) => h.name), t.field.name].join('/');
      return `${t.direction === 'desc' ? '-' : ''}${path}${t.ci ? ':ci' : ''}${t.nulls ? `:nulls${t.nulls}` : ''}`;
    })
    .join(',');
}

/** Fold the letters A–Z to a–z and nothing else, as a `:ci` key compares (values.ts then applies the collation). */
function foldAscii(value: string): string {
  return value.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** Read a sort key of a row: NULL when the value is NULL or a hop leads nowhere. */
export function sortValue(root: EntitySpec, row: Row, term: GenSortTerm, visibility: Visibility): Value {
  if (term.aggregate) return aggregateValue(term.aggregate, row, { root, visibility, variables: new Map() });
  const end = follow({ entity: root, row }, term.hops, visibility);
  return end ? ((end.row[term.field.property] ?? null) as Value) : null;
}

/** The effective sort key of a row: the requested keys, then the primary-key columns not requested. */
export function sortKeyOf(root: EntitySpec, terms: readonly GenSortTerm[], row: Row, visibility: Visibility): Value[] {
  const requested = new Set(terms.filter((t) => t.hops.length === 0).map((t) => t.field.property));
  const ties = root.pk.filter((k) => !requested.has(k)).map((k) => (row[k] ?? null) as Value);
  return [...terms.map((t) => sortValue(root, row, t, visibility)), ...ties];
}

/**
 * Compare two effective sort keys: requested keys NULLS LAST in their direction, then ties ascending, each as the
 * database `db` orders it (two strings its collation deems equal tie, and the keys after them decide).
 */
export function compareSortKeys(
  root: EntitySpec,
  terms: readonly GenSortTerm[],
  a: Value[],
  b: Value[],
  db: DbModel = BINARY,
): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    const term = terms[i];
    if (x === null || y === null) {
      if (x === y) continue;
      // NULLS LAST whatever the direction, unless the key asks `:nullsfirst`.
      return (x === null) === (term?.nulls === 'first') ? -1 : 1;
    }
    const field = term?.field ?? tieField(root, terms, i - terms.length);
    const [u, v] = term?.ci && typeof x === 'string' && typeof y === 'string' ? [foldAscii(x), foldAscii(y)] : [x, y];
    const c = compareValues(field?.kind ?? 'integer', u, v, db, field?.items ? { items: field.items } : undefined);
    if (c !== 0) return term?.direction === 'desc' ? -c : c;
  }
  return 0;
}

function tieField(root: EntitySpec, terms: readonly GenSortTerm[], index: number): FieldSpec | undefined {
  const requested = new Set(terms.filter((t) => t.hops.length === 0).map((t) => t.field.property));
  const key = root.pk.filter((k) => !requested.has(k))[index];
  return root.fields.find((f) => f.property === key);
}

/** Compare two root rows in the effective order: the requested keys (NULLS LAST), then the primary key ascending. */
export function rowComparator(
  root: EntitySpec,
  terms: readonly GenSortTerm[],
  visibility: Visibility,
): (a: Row, b: Row) => number {
  return (a, b) =>
    compareSortKeys(
      root,
      terms,
      sortKeyOf(root, terms, a, visibility),
      sortKeyOf(root, terms, b, visibility),
      visibility.db,
    );
}

/** Sort root rows as the engine must: a new array, the input unchanged. */
export function sortRows(
  root: EntitySpec,
  rows: readonly Row[],
  terms: readonly GenSortTerm[],
  visibility: Visibility,
): Row[] {
  return [...rows].sort(rowComparator(root, terms, visibility));
}
