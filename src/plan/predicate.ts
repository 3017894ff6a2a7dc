import type {
  BoundRelation,
  FieldRef,
  ResolvedCompare,
  ResolvedFilter,
  ResolvedQuantifier,
  ResolvedRelationNull,
} from '../bind/types.ts';
import { errorAtPosition, type ListError } from '../errors.ts';
import type { Span } from '../syntax/ast.ts';
import { aggregateTest } from './aggregate.ts';
import { existsThrough, throughHops } from './exists.ts';
import { joinFragments, type SqlFragment } from './fragment.ts';
import { likeFragment } from './like.ts';
import type { PredicateContext } from './predicate-context.ts';
import type { SubQueryContext } from './sub-query-context.ts';

export type { PredicateContext } from './predicate-context.ts';

const COMPARISON_SQL: Readonly<Record<ResolvedCompare['operator'], string>> = {
  eq: '=',
  ne: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
};

/**
 * Compile a resolved filter to SQL with `?` placeholders. Every compound is parenthesized, so the text can be
 * ANDed into any where clause; NULLs follow SQL's three-valued logic (a row matches only when the filter is TRUE).
 * A to-one path becomes a correlated EXISTS per hop; `any` is EXISTS over the children where the predicate holds,
 * `all` is NOT EXISTS over the children where it is not TRUE (so NULL fails `all`, and an empty collection passes).
 *
 * @example compileFilter(`not (stock gt 0) or name eq 'x'`) → `(not ("p"."stock" > ?) or "p"."name" = ?)`, [0, 'x']
 * @example compileFilter(`reviews/all(r: r/stars gte 3)`)
 * // not exists (select 1 from "review" as "lq1" where "lq1"."book_id" = "b"."id" and … and ("lq1"."stars" >= ?) is not true)
 */
export function compileFilter(filter: ResolvedFilter, ctx: PredicateContext): SqlFragment {
  switch (filter.kind) {
    case 'compare':
      return at(filter.target, ctx, (c) => ({
        sql: `${c} ${COMPARISON_SQL[filter.operator]} ?`,
        params: [filter.value],
      }));
    case 'like':
      return at(filter.target, ctx, (c) => likeFragment(ctx.dialect, c, filter.operator, filter.value));
    case 'in': {
      // The grammar forbids empty lists; should one arrive anyway, keep the set semantics instead of emitting `in ()`.
      if (filter.values.length === 0) return { sql: filter.negated ? '(1 = 1)' : '(1 = 0)', params: [] };
      const list = filter.values.map(() => '?').join(', ');
      return at(filter.target, ctx, (c) => ({
        sql: `${c} ${filter.negated ? 'not in' : 'in'} (${list})`,
        params: filter.values,
      }));
    }
    case 'null':
      return at(filter.target, ctx, (c) => ({ sql: `${c} ${filter.negated ? 'is not null' : 'is null'}`, params: [] }));
    case 'relationNull':
      return relationNull(filter, ctx);
    case 'not': {
      const operand = compileFilter(filter.operand, ctx);
      return { sql: `not (${operand.sql})`, params: operand.params };
    }
    case 'and':
    case 'or': {
      // Flatten a chain of the same connective into one parenthesized list: `a and b and c`, not `((a and b) and c)`.
      const parts = chain(filter, filter.kind).map((f) => compileFilter(f, ctx));
      const joined = joinFragments(parts, ` ${filter.kind} `);
      return { sql: `(${joined.sql})`, params: joined.params };
    }
    case 'quantifier':
      return quantifier(filter, ctx);
    case 'aggregate':
      return aggregateTest(filter, ctx, compileFilter);
    default: {
      const never: never = filter;
      throw new Error(`unknown filter node ${String((never as ResolvedFilter).kind)}`);
    }
  }
}

function chain(filter: ResolvedFilter, kind: 'and' | 'or'): ResolvedFilter[] {
  if ((filter.kind === 'and' || filter.kind === 'or') && filter.kind === kind)
    return [...chain(filter.left, kind), ...chain(filter.right, kind)];
  return [filter];
}

/**
 * Build a test of the column a reference names: on its scope's table directly, or inside one EXISTS per to-one hop.
 * Identifiers are quoted from metadata, never taken from client input.
 */
function at(ref: FieldRef, ctx: PredicateContext, test: (column: string) => SqlFragment): SqlFragment {
  const start = scopeAlias(ref.variable, ref.span, ctx);
  const leaf = (alias: string) => test(ctx.platform.quoteIdentifier(`${alias}.${ref.field.column}`));
  if (ref.relations.length === 0) return leaf(start);
  requireCardinality(ref.relations, 'one', ref.span);
  return throughHops(subQueries(ctx, ref.span), ref.relations, start, ref.span, leaf);
}

/** `any` → EXISTS (children where P); `all` → NOT EXISTS (children where (P) IS NOT TRUE); to-one hops nest outside. */
function quantifier(filter: ResolvedQuantifier, ctx: PredicateContext): SqlFragment {
  const start = scopeAlias(filter.from, filter.span, ctx);
  const many = filter.relations.at(-1);
  if (!many) throw relationshipError('a quantifier needs a to-many relation', filter.span);
  requireCardinality([many], 'many', filter.span);
  const hops = filter.relations.slice(0, -1);
  requireCardinality(hops, 'one', filter.span);
  const sub = subQueries(ctx, filter.span);
  const all = filter.quantifier === 'all';
  // A broken to-one hop (NULL key, filtered row) leaves no children: `any` is false and `all` is true.
  const exists = throughHops(sub, hops, start, filter.span, (alias) =>
    existsThrough(sub, many, alias, filter.span, (child) => {
      const variables = new Map(ctx.variables).set(filter.variable, child);
      const predicate = compileFilter(filter.predicate, { ...ctx, variables });
      return all ? { sql: `(${predicate.sql}) is not true`, params: predicate.params } : predicate;
    }),
  );
  return all ? { sql: `not ${exists.sql}`, params: exists.params } : exists;
}

/**
 * `rel is null` → NOT EXISTS (the related row, passing its filters); `is not null` → EXISTS. Each further to-one hop
 * nests, so `a/b is null` holds when either row is missing.
 */
function relationNull(filter: ResolvedRelationNull, ctx: PredicateContext): SqlFragment {
  const start = scopeAlias(filter.from, filter.span, ctx);
  requireCardinality(filter.relations, 'one', filter.span);
  const exists = throughHops(subQueries(ctx, filter.span), filter.relations, start, filter.span, () => ({
    sql: '',
    params: [],
  }));
  return filter.negated ? exists : { sql: `not ${exists.sql}`, params: exists.params };
}

/** The alias a path starts from: the root's, or the sub-query of the quantifier variable it names. */
function scopeAlias(variable: string | undefined, span: Span, ctx: PredicateContext): string {
  if (variable === undefined) return ctx.alias;
  const alias = ctx.variables?.get(variable);
  // Binding only lets active variables through; a tree built elsewhere is refused the same way.
  if (alias === undefined) throw relationshipError('a variable is used outside its any/all', span);
  return alias;
}

function requireCardinality(relations: readonly BoundRelation[], cardinality: 'one' | 'many', span: Span): void {
  for (const relation of relations)
    if (relation.cardinality !== cardinality)
      throw relationshipError(
        `relation '${relation.publicName}' is not ${cardinality === 'one' ? 'to-one' : 'to-many'}`,
        span,
      );
}

function subQueries(ctx: PredicateContext, span: Span): SubQueryContext {
  if (!ctx.relations) throw relationshipError('relationship paths cannot be planned here', span);
  return ctx.relations;
}

/** Build an invalid_relationship error for a tree the planner cannot build, located at the node. */
function relationshipError(message: string, span: Span): ListError {
  return errorAtPosition('invalid_relationship', message, 'filter', span);
}
