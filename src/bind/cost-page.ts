import type { Dialect } from '../dialect/index.ts';
import type { ResolvedQuery, ResolvedSortTerm } from './types.ts';

/**
 * What the cost budget charges beyond the filter's own work (docs/security.md, Cost budget): how many times the
 * filter runs over the scope, and the work that does not depend on the filter. All in the budget's unit, one
 * correlated sub-query evaluated over every row of the scope.
 */

/** A sort through relations where the dialect says nothing (Dialect.relationSortCost). */
const RELATION_SORT_UNITS = 4;
/** Rows an offset makes the data statement produce and skip, per unit of the budget, where the dialect says nothing. */
export const OFFSET_ROWS_PER_UNIT = 25_000;

/** The facts of the page a request reads that its text does not hold. */
export interface PageFacts {
  /** The database: it decides whether a page after a cursor is one statement or a UNION ALL of branches. */
  readonly dialect?: Pick<
    Dialect,
    | 'name'
    | 'label'
    | 'seeksNullableByUnion'
    | 'seeksMixedByUnion'
    | 'rowValueSeek'
    | 'emulatesNullsOrder'
    | 'unionBranchCost'
    | 'relationSortCost'
    | 'hopCost'
    | 'offsetRowsPerUnit'
    | 'statementShare'
  >;
  /** The order the page is read in, when the engine's defaultSort replaces a missing `sort`. */
  readonly sort?: readonly ResolvedSortTerm[];
  /** The root's primary-key columns: the tie-breaker keys of every order, unless the sort names them. */
  readonly primaryKey?: readonly string[];
  /** The page is built as one statement whatever its sort (apply(), which builds no UNION ALL). */
  readonly oneStatement?: boolean;
}

/** One reason the filter runs over the scope (the data page, its branches, the count), and how many times. */
export interface Run {
  readonly why: string;
  readonly times: number;
}

/** A charge that does not depend on the filter: which parameter asks for it, and its units. */
export interface FixedCharge {
  readonly parameter: 'sort' | 'offset';
  readonly why: string;
  readonly units: number;
}

/**
 * The runs of a request's filter: once for the data page, or once per branch where the page is read as a UNION ALL
 * of branches that each repeat the filter (weighted by the dialect's unionBranchCost), and once more for count=true.
 */
export function runsOf(resolved: ResolvedQuery, page: PageFacts | undefined): Run[] {
  const branches = pageBranches(resolved, page);
  const runs: Run[] = [];
  if (branches > 1) {
    const weight = page?.dialect?.unionBranchCost ?? 1;
    const each = weight > 1 ? ` ×${weight}` : '';
    const of = mixedBranches(resolved, page) ? 'sort keys of mixed directions' : 'a nullable sort key';
    runs.push({ why: `${branches} branches of ${of}${each}`, times: branches * weight });
  } else runs.push({ why: 'the page', times: 1 });
  // An estimated count asks the planner only: it runs nothing over the rows.
  if (resolved.count === true) runs.push({ why: 'count=true', times: 1 });
  return runs;
}

/** The charges that do not depend on the filter: a sort through relations, an offset. */
export function fixedCharges(resolved: ResolvedQuery, sortJoins: number, page: PageFacts | undefined): FixedCharge[] {
  const out: FixedCharge[] = [];
  const sort = page?.dialect?.relationSortCost ?? RELATION_SORT_UNITS;
  if (sortJoins > 0) out.push({ parameter: 'sort', why: 'a sort through a relation', units: sort });
  const offset = resolved.offset ?? 0;
  const rowsPerUnit = page?.dialect?.offsetRowsPerUnit ?? OFFSET_ROWS_PER_UNIT;
  if (offset > 0) out.push({ parameter: 'offset', why: `offset ${offset}`, units: round(offset / rowsPerUnit) });
  return out;
}

/**
 * How many branches the data page is read as (1: one statement). PostgreSQL, MySQL, MariaDB and SQLite read a page
 * after a cursor on a nullable root key as a UNION ALL (keyset/seek-page.ts): a branch per key, and one more per nullable key
 * (its NULLs), where PostgreSQL's row values join adjacent keys of one direction that hold no NULL. MySQL and MariaDB
 * also read a first page whose leading key is nullable and ascending as two branches (its values, its NULLs).
 * Counted as the cursor's values would all be non-NULL: the most branches the sort can give.
 */
function pageBranches(resolved: ResolvedQuery, page: PageFacts | undefined): number {
  const dialect = page?.dialect;
  const sort = resolved.sort.length > 0 ? resolved.sort : (page?.sort ?? []);
  if (!(dialect?.seeksNullableByUnion || dialect?.seeksMixedByUnion) || page?.oneStatement) return 1;
  // A key through a relation or an aggregate key keeps the plain predicate (keyset/seek-page.ts, seeksByUnion).
  const fields = sort.flatMap((t) => (t.target ? [t.target] : []));
  if (fields.length < sort.length || fields.some((t) => t.relations.length > 0)) return 1;
  const nullable = fields.some((t) => t.field.nullable);
  if (nullable ? !dialect.seeksNullableByUnion : resolved.cursor === undefined) return 1;
  if (resolved.cursor === undefined) {
    const lead = fields[0]!;
    const emulated = dialect.emulatesNullsOrder && lead.field.nullable && sort[0]!.direction === 'asc';
    return emulated && !resolved.offset ? 2 : 1;
  }
  // The primary key's columns follow as the tie-breaker (those the sort does not name): non-nullable, ascending.
  const named = new Set(fields.map((t) => t.field.column));
  const tieBreaker = (page?.primaryKey ?? ['']).filter((column) => !named.has(column)).map(() => PK);
  const keys = [
    ...sort.map((t, i) => ({ nullable: fields[i]!.field.nullable, direction: t.direction })),
    ...tieBreaker,
  ];
  let branches = 0;
  let previous: (typeof keys)[number] | undefined;
  for (const key of keys) {
    const joined =
      dialect.rowValueSeek &&
      previous !== undefined &&
      !previous.nullable &&
      !key.nullable &&
      previous.direction === key.direction;
    if (!joined) branches += key.nullable ? 2 : 1;
    previous = key;
  }
  // NOT NULL keys of three keyset units or more (mixed directions): the cursor's leading group and the rows after it.
  if (!nullable) return dialect.seeksMixedByUnion && branches >= 3 ? 2 : 1;
  return branches;
}

const PK = { nullable: false, direction: 'asc' } as const;

/** The page's branches split NOT NULL keys of mixed directions (no key of the sort is nullable). */
function mixedBranches(resolved: ResolvedQuery, page: PageFacts | undefined): boolean {
  const sort = resolved.sort.length > 0 ? resolved.sort : (page?.sort ?? []);
  return !sort.some((t) => t.target?.field.nullable);
}

/** Round a charge to two decimals, as messages show it. */
export function round(units: number): number {
  return Math.round(units * 100) / 100;
}
