import type { EntityMetadata, MetadataStorage, Platform } from '@mikro-orm/core';
import type { BoundRelation, BoundSchema } from '../../bind/types.ts';
import type { Dialect } from '../../dialect/index.ts';
import { linkOf } from '../../plan/correlate.ts';

/** One column of an advised index, in index order. */
export interface IndexColumn {
  readonly column: string;
  readonly direction: 'asc' | 'desc';
  /** Where NULLs go in this column of the index; only stated for nullable sort keys. */
  readonly nulls?: 'last' | 'first';
  /** The index keys the column folded to lower case, exactly as the case-insensitive operators compare it. */
  readonly folded?: true;
}

/**
 * An index that makes a request shape cheap, with the DDL to create it. `sort` indexes serve one sort of the
 * endpoint (keyset pages seek instead of scanning); `correlation` indexes serve the correlated sub-queries of
 * relation filters (`reviews/any(…)`, `author/name eq …`), which look rows up by these columns once per outer row;
 * `case-insensitive` indexes are expression indexes on the folded column that serve `ieq` (and `istartswith` on
 * PostgreSQL; none on MySQL and MariaDB).
 */
export interface IndexAdvice {
  readonly reason: 'sort' | 'correlation' | 'case-insensitive';
  /** What it serves, in the request language: `sort=-score`, or `filter=reviews/any(…)` for a relation path. */
  readonly serves: string;
  readonly table: string;
  readonly columns: readonly IndexColumn[];
  /** `create index if not exists …` for the engine's dialect (MySQL: `create index …`, it has no `if not exists`). */
  readonly ddl: string;
  /** Caveats for this dialect, e.g. an order no index on this dialect can serve. */
  readonly note?: string;
}

/**
 * List the indexes that serve an engine's sortable root fields (both directions, each with the primary-key
 * tie-breaker the engine appends) and the columns its relation sub-queries correlate on.
 */
export function adviseIndexes(bound: BoundSchema, dialect: Dialect, metadata: MetadataStorage): IndexAdvice[] {
  const out: IndexAdvice[] = [];
  const seen = new Set<string>();
  const push = (advice: Omit<IndexAdvice, 'ddl'>) => {
    const id = `${advice.table}(${advice.columns.map((c) => `${c.folded ? 'folded ' : ''}${c.column} ${c.direction}${c.nulls === 'first' ? ' nulls first' : ''}`).join(',')})`;
    if (seen.has(id)) return;
    seen.add(id);
    out.push({ ...advice, ddl: ddlOf(bound.platform, dialect, advice.table, advice.columns) });
  };
  sortAdvice(bound, dialect, push);
  foldedAdvice(bound, dialect, push);
  correlationAdvice(bound, dialect, '', metadata, new Set(), push);
  return out;
}

type Push = (advice: Omit<IndexAdvice, 'ddl'>) => void;

function sortAdvice(bound: BoundSchema, dialect: Dialect, push: Push): void {
  const table = bound.meta.tableName;
  const pkColumns = bound.primaryKey.map((k) => k.column);
  const tieBreaker = (skip: string): IndexColumn[] =>
    pkColumns.filter((c) => c !== skip).map((column) => ({ column, direction: 'asc' }));
  for (const field of bound.fields.values()) {
    if (!field.sortable) continue;
    const isKey = pkColumns.includes(field.column);
    // The primary key's own index serves a single-column key in both directions (a backward scan for desc).
    if (isKey && pkColumns.length === 1) continue;
    const nullable = field.nullable && !isKey;
    // `:ci` orders by the folded column, except where the collation already compares caselessly (a plain index).
    const folds = field.sortCaseInsensitive === true && !dialect.collationSortsCaselessly;
    for (const folded of folds ? [false, true] : [false])
      for (const nulls of nullable ? placements(dialect) : [undefined])
        for (const direction of ['asc', 'desc'] as const) {
          const lead: IndexColumn = {
            column: field.column,
            direction,
            ...(nulls ? { nulls } : {}),
            ...(folded ? { folded: true as const } : {}),
          };
          const note = dialect.sortIndexNote(nullable, direction);
          const modifiers = `${folded ? ':ci' : ''}${nulls === 'first' ? ':nullsfirst' : ''}`;
          push({
            reason: 'sort',
            serves: `sort=${direction === 'desc' ? '-' : ''}${field.publicName}${modifiers}`,
            table,
            columns: [lead, ...tieBreaker(field.column)],
            ...(note && nulls !== 'first' ? { note } : {}),
          });
        }
  }
}

/**
 * The NULL placements a nullable sort key gets its own index for: both where an index column can say where its
 * NULLs go (PostgreSQL); elsewhere NULLs are the smallest value in every index, so one index per direction serves
 * the placement that puts them there (ascending NULLs first, descending NULLs last) and the note says so.
 */
function placements(dialect: Dialect): readonly ('last' | 'first')[] {
  return dialect.indexNullsClause ? ['last', 'first'] : ['last'];
}

/**
 * Advise an expression index on the folded column of each root field that declares an operator it can serve:
 * `ieq` everywhere, `istartswith` on PostgreSQL too (a prefix LIKE under the "C" collation becomes a range scan).
 * SQLite uses no index for GLOB on an expression, so `istartswith`, `icontains` and `iendswith` scan there.
 * MySQL and MariaDB get none: MariaDB cannot index an expression (an index on a generated column is not used for
 * the same expression written in a query), so the `i` operators scan there.
 */
function foldedAdvice(bound: BoundSchema, dialect: Dialect, push: Push): void {
  const served = dialect.foldedIndexOperators;
  for (const field of bound.fields.values()) {
    const operators = served.filter((op) => field.operators.has(op));
    if (operators.length === 0) continue;
    push({
      reason: 'case-insensitive',
      serves: operators.map((op) => `filter=${field.publicName} ${op} …`).join(', '),
      table: bound.meta.tableName,
      columns: [{ column: field.column, direction: 'asc', folded: true }],
    });
  }
}

/** Walk the policy's relations (each entity-relation pair once, so cycles end) and advise the inner columns. */
function correlationAdvice(
  bound: BoundSchema,
  dialect: Dialect,
  prefix: string,
  metadata: MetadataStorage,
  visited: Set<string>,
  push: Push,
): void {
  for (const relation of bound.relations.values()) {
    const id = `${bound.entityName}.${relation.property}`;
    if (visited.has(id)) continue;
    visited.add(id);
    const path = `${prefix}${relation.publicName}`;
    const advised = innerColumns(relation, metadata);
    if (advised && !leadsPrimaryKey(advised.meta, advised.columns)) {
      const serves = relation.cardinality === 'many' ? `filter=${path}/any(…)` : `filter=${path}/… (to-one path)`;
      push({
        reason: 'correlation',
        serves,
        table: advised.meta.tableName,
        columns: advised.columns.map((column) => ({ column, direction: 'asc' })),
        ...(dialect.foreignKeyIndexNote ? { note: dialect.foreignKeyIndexNote } : {}),
      });
    }
    if (advised && relation.aggregates) aggregateAdvice(relation, path, advised, dialect, push);
    correlationAdvice(relation.target, dialect, `${path}/`, metadata, visited, push);
  }
}

/**
 * An aggregate's sub-query reads a book's reviews by their foreign key, and `sum`/`avg`/`min`/`max` read the field:
 * an index on `(foreign key, field)` answers it from the index alone (`count()` needs the foreign key only, advised
 * above). Not through the pivot of a many-to-many relation: the field is on the target table there.
 */
function aggregateAdvice(
  relation: BoundRelation,
  path: string,
  advised: { meta: EntityMetadata; columns: string[] },
  dialect: Dialect,
  push: Push,
): void {
  if (advised.meta.class !== relation.target.meta.class) return;
  const fields = new Map<string, string[]>();
  for (const [fn, names] of Object.entries(relation.aggregates?.fields ?? {}))
    for (const name of names) fields.set(name, [...(fields.get(name) ?? []), `${path}/${fn}(${name})`]);
  for (const [name, uses] of fields) {
    const field = relation.target.fields.get(name);
    if (!field) continue;
    push({
      reason: 'correlation',
      serves: `filter=${uses.join(', ')} (and sort)`,
      table: advised.meta.tableName,
      columns: [...advised.columns, field.column].map((column) => ({ column, direction: 'asc' })),
      ...(dialect.foreignKeyIndexNote ? { note: dialect.foreignKeyIndexNote } : {}),
    });
  }
}

function innerColumns(
  relation: BoundRelation,
  metadata: MetadataStorage,
): { meta: EntityMetadata; columns: string[] } | undefined {
  const span = { offset: 0, line: 1, column: 1, end: 0 };
  let link: ReturnType<typeof linkOf>;
  try {
    link = linkOf(relation.prop, metadata, span);
  } catch {
    return undefined; // bind already refused what cannot be correlated; nothing to advise
  }
  const columns = link.pairs.map((p) => p.inner);
  return { meta: link.kind === 'pivot' ? link.pivot : link.target, columns };
}

/** A table's primary key already serves lookups by its leading columns. */
function leadsPrimaryKey(meta: EntityMetadata, columns: readonly string[]): boolean {
  const pk = meta.getPrimaryProps().flatMap((p) => p.fieldNames ?? []);
  return columns.every((c, i) => pk[i] === c);
}

function ddlOf(platform: Platform, dialect: Dialect, table: string, columns: readonly IndexColumn[]): string {
  const name = `${table}_${columns.map((c) => `${c.column}${c.direction === 'desc' ? '_desc' : ''}${c.nulls === 'first' ? '_nf' : ''}${c.folded ? '_folded' : ''}`).join('_')}_idx`;
  const parts = columns.map((c) => {
    let text = c.folded
      ? `(${dialect.foldedColumn(platform.quoteIdentifier(c.column))})`
      : platform.quoteIdentifier(c.column);
    if (c.direction === 'desc') text += ' desc';
    // PostgreSQL puts NULLs last in ascending and first in descending indexes unless told (`:nullsfirst` keys get
    // `asc nulls first` and a plain `desc`); SQLite has no clause for it in an index (NULLs are the smallest value
    // there, so a descending index already has them last).
    // MySQL and MariaDB have no such clause either, and also sort NULLs as the smallest value.
    if (c.nulls === 'last' && c.direction === 'desc' && dialect.indexNullsClause) text += ' nulls last';
    if (c.nulls === 'first' && c.direction === 'asc' && dialect.indexNullsClause) text += ' nulls first';
    return text;
  });
  // MariaDB and PostgreSQL and SQLite accept `if not exists` on create index; MySQL does not.
  const create = dialect.createIndexIfNotExists ? 'create index if not exists' : 'create index';
  return `${create} ${platform.quoteIdentifier(name)} on ${platform.quoteIdentifier(table)} (${parts.join(', ')})`;
}
