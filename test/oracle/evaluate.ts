/**
 * The reference evaluator: a filter tree over in-memory rows, with the semantics the docs promise and nothing
 * borrowed from the planner. SQL three-valued logic (`null` is UNKNOWN); a row matches when the filter is TRUE.
 *
 * - Comparisons against NULL are UNKNOWN; `in` is an OR of `=`, `not in` an AND of `<>`.
 * - eq/ne/lt/gt/in on strings compare as the column's collation does (values.ts, DbModel): by code point on SQLite
 *   and PostgreSQL, case-, accent- and trailing-space-blind under MariaDB's utf8mb4_general_ci.
 * - contains/startswith/endswith are exact substring tests (case, accents and spaces count), whatever the collation.
 * - ieq/ine/icontains/istartswith/iendswith compare both sides with A–Z folded to a–z and every other character
 *   (É, ß, İ …) left as it is, on every dialect.
 * - A path through to-one relations is an EXISTS over the related row (DESIGN §5.3): TRUE when the related row
 *   exists and the comparison is TRUE, otherwise FALSE (never UNKNOWN). A related row hidden by soft delete or
 *   tenant does not exist.
 * - `<to-one path> is null` (a relation exposed with nullCheck): TRUE when a hop has no existing related row;
 *   `is not null` is its complement. Never UNKNOWN.
 * - Aggregates (`count()`, `sum`, `avg`, `min`, `max` of a to-many relation's rows): see aggregateValue; a comparison
 *   with a NULL aggregate is UNKNOWN, `is null` is TRUE or FALSE.
 * - `any`: some existing child makes the predicate TRUE. `all`: no existing child makes it FALSE or UNKNOWN
 *   (so an empty collection satisfies `all`).
 */
import type { GenFilter, GenPath } from './filter.ts';
import { type EntitySpec, type RelationSpec, type Row, type Visibility, visible } from './model.ts';
import { BINARY, compareValues, type DbModel, type Value } from './values.ts';

/** TRUE, FALSE or UNKNOWN. */
export type Truth = boolean | null;

/** What evaluating needs: the root entity, which rows exist, and the active quantifier variables. */
export interface EvalContext {
  readonly root: EntitySpec;
  readonly visibility: Visibility;
  readonly variables: ReadonlyMap<string, { readonly entity: EntitySpec; readonly row: Row }>;
}

const and3 = (a: Truth, b: Truth): Truth =>
  a === false || b === false ? false : a === null || b === null ? null : true;
const or3 = (a: Truth, b: Truth): Truth => (a === true || b === true ? true : a === null || b === null ? null : false);
const not3 = (a: Truth): Truth => (a === null ? null : !a);

/** Evaluate a filter on a root row. */
export function evaluate(filter: GenFilter, row: Row, ctx: EvalContext): Truth {
  switch (filter.kind) {
    case 'cmp':
    case 'in':
    case 'null':
      return onPath(filter.path, row, ctx, (value) => scalar(filter, value, ctx.visibility.db ?? BINARY));
    case 'relNull': {
      // EXISTS over the related row (passing its filters): TRUE or FALSE, never UNKNOWN.
      const end = follow(startOf(filter.variable, row, ctx), filter.hops, ctx.visibility);
      return filter.negated ? end !== undefined : end === undefined;
    }
    case 'not':
      return not3(evaluate(filter.operand, row, ctx));
    case 'and':
      return and3(evaluate(filter.left, row, ctx), evaluate(filter.right, row, ctx));
    case 'or':
      return or3(evaluate(filter.left, row, ctx), evaluate(filter.right, row, ctx));
    case 'quant':
      return quantify(filter, row, ctx);
    case 'count':
      return countOf(filter, row, ctx);
    default: {
      const never: never = filter;
      throw new Error(`oracle: unknown node ${String(never)}`);
    }
  }
}

/** Follow to-one hops from a start row; undefined when a hop has no existing related row. */
export function follow(
  start: { entity: EntitySpec; row: Row },
  hops: readonly RelationSpec[],
  visibility: Visibility,
): { entity: EntitySpec; row: Row } | undefined {
  let at = start;
  for (const hop of hops) {
    const next = at.row[hop.property] as Row | null | undefined;
    const entity = hop.target();
    if (!next || !visible(entity, next, visibility)) return undefined;
    at = { entity, row: next };
  }
  return at;
}

function startOf(variable: string | undefined, row: Row, ctx: EvalContext): { entity: EntitySpec; row: Row } {
  if (variable === undefined) return { entity: ctx.root, row };
  const bound = ctx.variables.get(variable);
  if (!bound) throw new Error(`oracle: variable ${variable} is not in scope`);
  return bound;
}

function onPath(path: GenPath, row: Row, ctx: EvalContext, test: (value: Value) => Truth): Truth {
  const end = follow(startOf(path.variable, row, ctx), path.hops, ctx.visibility);
  if (!end) return false;
  const result = test((end.row[path.field.property] ?? null) as Value);
  // Through a to-one hop the comparison sits inside EXISTS: only TRUE makes a row exist.
  return path.hops.length > 0 ? result === true : result;
}

function scalar(filter: Extract<GenFilter, { kind: 'cmp' | 'in' | 'null' }>, value: Value, db: DbModel): Truth {
  const kind = filter.path.field.kind;
  if (filter.kind === 'null') return filter.negated ? value !== null : value === null;
  if (value === null) return null;
  if (filter.kind === 'in') {
    const hit = filter.literals.some((l) => compareValues(kind, value, l.value, db) === 0);
    return filter.negated ? !hit : hit;
  }
  const literal = filter.literal.value;
  switch (filter.op) {
    case 'contains':
      return (value as string).includes(literal as string);
    case 'startswith':
      return (value as string).startsWith(literal as string);
    case 'endswith':
      return (value as string).endsWith(literal as string);
    case 'ieq':
      return fold(value as string) === fold(literal as string);
    case 'ine':
      return fold(value as string) !== fold(literal as string);
    case 'icontains':
      return fold(value as string).includes(fold(literal as string));
    case 'istartswith':
      return fold(value as string).startsWith(fold(literal as string));
    case 'iendswith':
      return fold(value as string).endsWith(fold(literal as string));
    default: {
      const c = compareValues(kind, value, literal, db);
      const results = { eq: c === 0, ne: c !== 0, gt: c > 0, gte: c >= 0, lt: c < 0, lte: c <= 0 };
      return results[filter.op];
    }
  }
}

/** ASCII-only case folding, written here independently of the library's. */
function fold(text: string): string {
  let out = '';
  for (const ch of text) out += ch >= 'A' && ch <= 'Z' ? String.fromCharCode(ch.charCodeAt(0) | 0x20) : ch;
  return out;
}

/** An aggregate as the filter and sort nodes name it: its path, function (count when absent), field, inner filter. */
export type GenAggregate = Pick<Extract<GenFilter, { kind: 'count' }>, 'from' | 'hops' | 'fn' | 'field' | 'inner'>;

/**
 * An aggregate's value for a row: the existing related rows (none when a to-one hop before them has no existing
 * row), those that make the inner predicate TRUE when there is one; `count()` counts them (never NULL), `sum`, `avg`,
 * `min` and `max` reduce their non-NULL values of the field (NULL when there is none). An average is the double
 * nearest the exact quotient: two averages of the fixture's integers are either equal fractions (the same double) or
 * far apart, so comparing doubles orders them as every dialect does.
 */
export function aggregateValue(a: GenAggregate, row: Row, ctx: EvalContext): number | null {
  const toOne = a.hops.slice(0, -1);
  const many = a.hops[a.hops.length - 1]!;
  const owner = follow(startOf(a.from, row, ctx), toOne, ctx.visibility);
  const target = many.target();
  const children = owner
    ? ((owner.row[many.property] ?? []) as readonly Row[]).filter((c) => visible(target, c, ctx.visibility))
    : [];
  const inner = a.inner;
  const kept = inner
    ? children.filter((child) => {
        const variables = new Map(ctx.variables).set(inner.variable, { entity: target, row: child });
        return evaluate(inner.predicate, row, { ...ctx, variables }) === true;
      })
    : children;
  if (!a.fn) return kept.length;
  const property = a.field?.property ?? '';
  const values = kept.map((c) => c[property]).filter((v): v is number => typeof v === 'number');
  if (values.length === 0) return null;
  const sum = values.reduce((x, y) => x + y, 0);
  switch (a.fn) {
    case 'sum':
      return sum;
    case 'avg':
      return sum / values.length;
    case 'min':
      return Math.min(...values);
    case 'max':
      return Math.max(...values);
    default: {
      const never: never = a.fn;
      throw new Error(`oracle: unknown aggregate ${String(never)}`);
    }
  }
}

/** An aggregate compared: `is null` TRUE or FALSE; a comparison with NULL UNKNOWN (so never UNKNOWN for count). */
function countOf(filter: Extract<GenFilter, { kind: 'count' }>, row: Row, ctx: EvalContext): Truth {
  const value = aggregateValue(filter, row, ctx);
  if (filter.op === 'null') return value === null;
  if (filter.op === 'notnull') return value !== null;
  if (value === null) return null;
  const results = {
    eq: value === filter.value,
    ne: value !== filter.value,
    gt: value > filter.value,
    gte: value >= filter.value,
    lt: value < filter.value,
    lte: value <= filter.value,
  };
  return results[filter.op];
}

function quantify(filter: Extract<GenFilter, { kind: 'quant' }>, row: Row, ctx: EvalContext): Truth {
  const toOne = filter.hops.slice(0, -1);
  const many = filter.hops[filter.hops.length - 1]!;
  const owner = follow(startOf(filter.from, row, ctx), toOne, ctx.visibility);
  const target = many.target();
  const children = owner
    ? ((owner.row[many.property] ?? []) as readonly Row[]).filter((c) => visible(target, c, ctx.visibility))
    : [];
  const variables = new Map(ctx.variables);
  const inner = (child: Row): Truth => {
    variables.set(filter.variable, { entity: target, row: child });
    return evaluate(filter.predicate, row, { ...ctx, variables });
  };
  if (filter.quantifier === 'any') return children.some((c) => inner(c) === true);
  return !children.some((c) => inner(c) !== true);
}
