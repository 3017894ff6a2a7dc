import { joinFragments, type SqlFragment } from '../plan/fragment.ts';

/** One effective sort key as the keyset predicate sees it: quoted SQL, direction, and whether it can be NULL. */
export interface KeysetColumn {
  /** The quoted, qualified column (`"p"."price"`); identifiers come from metadata, never from input. */
  readonly sql: string;
  readonly direction: 'asc' | 'desc';
  readonly nullable: boolean;
  /** NULLs come first in this key's order (asked for, or a mirrored, backward order); absent means NULLS LAST. */
  readonly nullsFirst?: boolean;
  /** The SQL a cursor value is compared as, `?` its placeholder (`lower(?)`, a case-insensitive key); `?` if absent. */
  readonly value?: string;
}

/** Options of keysetPredicate. */
export interface KeysetOptions {
  /**
   * Fold each run of adjacent NOT NULL, same-direction keys into one row-value comparison (`(a, b) > (?, ?)`),
   * which indexes can serve. Off gives the plain OR/AND expansion (docs/pagination.md); both select the same rows.
   */
  readonly rowValues?: boolean;
}

/** A run of keys compared together: one key, or several NOT NULL keys of one direction as a row value. */
interface Unit {
  readonly columns: readonly KeysetColumn[];
  readonly values: readonly unknown[];
  readonly direction: 'asc' | 'desc';
  /** A single nullable key: AFTER then also matches NULL, and a NULL cursor value has no AFTER branch. */
  readonly nullable: boolean;
  /** A nullable key whose NULLs come first: AFTER a value is the comparison alone, AFTER NULL is `IS NOT NULL`. */
  readonly nullsFirst: boolean;
}

/**
 * Build the predicate "row comes strictly after the cursor" for keys sorted NULLS LAST in both directions:
 * the OR over i of (k1 ≡ c1 AND … AND k(i-1) ≡ c(i-1) AND ki AFTER ci), where ≡ is `=` or `IS NULL`, and AFTER is
 * `>`/`<` plus `OR ki IS NULL` when ki is nullable (no branch for a NULL ci). A key whose NULLs come first (see
 * mirrorSort, a backward page's order) has AFTER = `>`/`<` alone, and AFTER NULL = `IS NOT NULL`: over mirrored
 * keys this predicate is "row comes strictly before the cursor" in the requested order. Values stay `?`
 * placeholders.
 *
 * @example keysetPredicate([score asc nullable, id asc], [5, 9])
 * // (("p"."score" > ? or "p"."score" is null) or ("p"."score" = ? and "p"."id" > ?)), [5, 5, 9]
 * @example keysetPredicate([created desc, id desc], ['…', 9]) // ("p"."created", "p"."id") < (?, ?)
 * @example keysetPredicate([score desc nulls first, id desc], [5, 9]) // before (5, 9) in `sort=score`
 * // ("p"."score" <= ? and (("p"."score" < ?) or ("p"."score" = ? and "p"."id" < ?))), [5, 5, 5, 9]
 */
export function keysetPredicate(
  columns: readonly KeysetColumn[],
  values: readonly unknown[],
  options: KeysetOptions = {},
): SqlFragment {
  if (columns.length !== values.length) throw new Error('listql: keyset columns and values differ in number');
  const units = unitsOf(columns, values, options.rowValues ?? true);
  const branches: SqlFragment[] = [];
  const equal: SqlFragment[] = [];
  for (const unit of units) {
    const after = afterOf(unit);
    if (after) branches.push(equal.length === 0 ? after : joinFragments([...equal, after], ' and '));
    equal.push(equalOf(unit));
  }
  if (branches.length === 0) return { sql: '(1 = 0)', params: [] };
  const any = branches.length === 1 ? branches[0]! : wrapEach(branches);
  // A leading NOT NULL unit bounds every branch (`k1 >= c1`): a range the index on k1 can seek to. So does a leading
  // key whose NULLs come first when its value is not NULL: then no branch matches a NULL.
  const first = units[0]!;
  const bounded = !first.nullable || (first.nullsFirst && first.values[0] !== null);
  if (units.length > 1 && bounded && branches.length > 1) {
    const bound = compare(first, first.direction === 'asc' ? '>=' : '<=');
    return { sql: `(${bound.sql} and (${any.sql}))`, params: [...bound.params, ...any.params] };
  }
  return { sql: `(${any.sql})`, params: any.params };
}

/** Options of keysetBranches. */
export interface KeysetBranchOptions extends KeysetOptions {
  /**
   * Give the branches even when no key needs splitting (a single branch included), so the caller can order each one
   * on its own (MySQL and MariaDB, see KeysetBranch). Without it, undefined says the plain predicate will do.
   */
  readonly always?: boolean;
}

/**
 * One branch of a split keyset predicate, and what it fixes about the sort keys, so the branch can be ordered with
 * plain terms an index serves: its first `settled` keys are constant in the branch (`k = c` or `k is null`), the
 * `nonNull` keys after them cannot be NULL in it (the branch compares them), the rest vary as in the whole order.
 */
export interface KeysetBranch extends SqlFragment {
  readonly settled: number;
  readonly nonNull: number;
}

/**
 * Split "row comes strictly after the cursor" into disjoint branches whose union is the keyset predicate, each a
 * conjunction an index on the keys can seek to: a nullable key's AFTER becomes two branches (`k < c` and
 * `k is null`) instead of one `or`. Returns undefined when no key needs that split (the predicate is then already
 * seekable, or has a single branch), unless `always` asks for the branches anyway.
 *
 * @example keysetBranches([score desc nullable, id asc], [5, 9])
 * // ("p"."score" < ?), ("p"."score" is null), ("p"."score" = ? and "p"."id" > ?): each seeks on (score desc nulls last, id)
 */
export function keysetBranches(
  columns: readonly KeysetColumn[],
  values: readonly unknown[],
  options: KeysetBranchOptions = {},
): KeysetBranch[] | undefined {
  if (columns.length !== values.length) throw new Error('listql: keyset columns and values differ in number');
  const units = unitsOf(columns, values, options.rowValues ?? true);
  const branches: KeysetBranch[] = [];
  const equal: SqlFragment[] = [];
  let split = false;
  let offset = 0;
  const branch = (last: SqlFragment, settled: number, nonNull: number) => {
    const { sql, params } = equal.length === 0 ? last : joinFragments([...equal, last], ' and ');
    branches.push({ sql: `(${sql})`, params, settled, nonNull });
  };
  for (const unit of units) {
    const value = unit.values[0];
    if (unit.nullable && unit.nullsFirst && value === null) {
      split = true;
      branch({ sql: `${unit.columns[0]!.sql} is not null`, params: [] }, offset, 1);
    } else if (!(unit.nullable && value === null)) {
      branch(compare(unit, unit.direction === 'asc' ? '>' : '<'), offset, unit.columns.length);
      if (unit.nullable && !unit.nullsFirst) {
        split = true;
        branch({ sql: `${unit.columns[0]!.sql} is null`, params: [] }, offset + 1, 0);
      }
    }
    equal.push(equalOf(unit));
    offset += unit.columns.length;
  }
  if (options.always) return branches.length > 0 ? branches : undefined;
  return split && branches.length > 1 ? branches : undefined;
}

/**
 * Split "row comes strictly after the cursor" in two at its leading unit, when that unit is NOT NULL and at least two
 * more follow (keys of mixed directions): the rows of the cursor's leading group that come after it in the keys that
 * follow (`k1 = c1 and <keysetPredicate of the rest>`, whose own leading bound seeks within the group), then the rows
 * after the leading value (`k1 > c1`). The plain predicate's `k1 >= c1 and (…)` starts at the group and filters its
 * rows before the cursor one by one; each branch here is one index range. Undefined when the split does not apply.
 *
 * @example leadingGroupBranches([price asc, created desc, id asc], [5, t, 9])
 * // ("p"."price" = ? and ("p"."created" <= ? and (("p"."created" < ?) or ("p"."created" = ? and "p"."id" > ?)))),
 * // ("p"."price" > ?)
 */
export function leadingGroupBranches(
  columns: readonly KeysetColumn[],
  values: readonly unknown[],
  options: KeysetOptions = {},
): KeysetBranch[] | undefined {
  if (columns.length !== values.length) throw new Error('listql: keyset columns and values differ in number');
  const units = unitsOf(columns, values, options.rowValues ?? true);
  const first = units[0];
  if (!first || first.nullable || units.length < 3) return undefined;
  const width = first.columns.length;
  const rest = keysetPredicate(columns.slice(width), values.slice(width), options);
  const group = joinFragments([equalOf(first), rest], ' and ');
  const after = compare(first, first.direction === 'asc' ? '>' : '<');
  return [
    { sql: `(${group.sql})`, params: group.params, settled: width, nonNull: 0 },
    { sql: `(${after.sql})`, params: after.params, settled: 0, nonNull: width },
  ];
}

/**
 * How many keyset units a sort's keys make (see keysetPredicate): with row values, a run of adjacent NOT NULL keys of
 * one direction is one unit; every nullable key is its own. Counted as for a cursor holding no NULL.
 */
export function keysetUnits(keys: readonly Pick<KeysetColumn, 'direction' | 'nullable'>[], rowValues: boolean): number {
  let units = 0;
  keys.forEach((key, i) => {
    const last = keys[i - 1];
    const joined = rowValues && last && !last.nullable && !key.nullable && last.direction === key.direction;
    if (!joined) units++;
  });
  return units;
}

function unitsOf(columns: readonly KeysetColumn[], values: readonly unknown[], rowValues: boolean): Unit[] {
  const units: Unit[] = [];
  columns.forEach((column, i) => {
    const value = values[i];
    const last = units.at(-1);
    const joinable =
      rowValues &&
      last !== undefined &&
      !last.nullable &&
      !column.nullable &&
      last.direction === column.direction &&
      value !== null;
    if (joinable) {
      units[units.length - 1] = { ...last, columns: [...last.columns, column], values: [...last.values, value] };
    } else {
      // A NOT NULL column holding NULL (a key through an outer join, mislabelled) is treated as nullable: safe.
      const nullable = column.nullable || value === null;
      const nullsFirst = column.nullsFirst === true;
      units.push({ columns: [column], values: [value], direction: column.direction, nullable, nullsFirst });
    }
  });
  return units;
}

function afterOf(unit: Unit): SqlFragment | undefined {
  const value = unit.values[0];
  if (unit.nullable && value === null)
    return unit.nullsFirst ? { sql: `${unit.columns[0]!.sql} is not null`, params: [] } : undefined;
  const strict = compare(unit, unit.direction === 'asc' ? '>' : '<');
  if (!unit.nullable || unit.nullsFirst) return strict;
  return { sql: `(${strict.sql} or ${unit.columns[0]!.sql} is null)`, params: strict.params };
}

function equalOf(unit: Unit): SqlFragment {
  if (unit.columns.length === 1 && unit.values[0] === null)
    return { sql: `${unit.columns[0]!.sql} is null`, params: [] };
  return joinFragments(
    unit.columns.map((c, i) => ({ sql: `${c.sql} = ${c.value ?? '?'}`, params: [unit.values[i]] })),
    ' and ',
  );
}

function compare(unit: Unit, operator: string): SqlFragment {
  const only = unit.columns[0]!;
  if (unit.columns.length === 1)
    return { sql: `${only.sql} ${operator} ${only.value ?? '?'}`, params: [unit.values[0]] };
  const left = unit.columns.map((c) => c.sql).join(', ');
  const right = unit.columns.map((c) => c.value ?? '?').join(', ');
  return { sql: `(${left}) ${operator} (${right})`, params: [...unit.values] };
}

function wrapEach(parts: readonly SqlFragment[]): SqlFragment {
  return joinFragments(
    parts.map((p) => ({ sql: `(${p.sql})`, params: p.params })),
    ' or ',
  );
}
