import type { ResolvedAggregate, ResolvedAggregateTest, ResolvedFilter } from '../bind/types.ts';
import { errorAtPosition } from '../errors.ts';
import { correlatedSelect } from './exists.ts';
import type { SqlFragment } from './fragment.ts';
import type { PredicateContext } from './predicate-context.ts';
import type { SubQueryContext } from './sub-query-context.ts';

/** Compiles an inner filter (compileFilter, passed in so that the two files do not import each other). */
export type FilterCompiler = (filter: ResolvedFilter, ctx: PredicateContext) => SqlFragment;

const SQL_FUNCTION = { count: 'count', sum: 'sum', avg: 'avg', min: 'min', max: 'max' } as const;

const COMPARISON_SQL = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/**
 * Build an aggregate's value as one scalar expression: a correlated sub-query over the to-many relation's rows that
 * pass their MikroORM filters (soft delete, tenant) and the inner filter, e.g.
 * `(select count(*) from "review" as "lq1" where "lq1"."book_id" = "b"."id" and "lq1"."deleted_at" is null)`;
 * many-to-many reads the pivot table joined to the target. Each to-one hop before it is one more scalar sub-query
 * around it (`(select (…) from "author" as "lq2" where "lq2"."id" = "b"."author_id" and …)`): no live row there
 * gives NULL, and count gives 0 (`coalesce`). Values stay `?` placeholders; the text is the same for equal trees.
 */
export function aggregateExpression(
  aggregate: ResolvedAggregate,
  ctx: PredicateContext,
  compile: FilterCompiler,
): SqlFragment {
  const sub = subQueries(ctx, aggregate);
  const start = startAlias(aggregate, ctx);
  const many = aggregate.relations.at(-1);
  if (many?.cardinality !== 'many') throw planError('an aggregate needs a to-many relation', aggregate);
  const hops = aggregate.relations.slice(0, -1);
  if (hops.some((h) => h.cardinality !== 'one'))
    throw planError('an aggregate goes through to-one hops only', aggregate);
  const fn = SQL_FUNCTION[aggregate.function];
  const innermost = (alias: string): SqlFragment => {
    const select = (child: string) =>
      aggregate.field ? `${fn}(${ctx.platform.quoteIdentifier(`${child}.${aggregate.field.column}`)})` : 'count(*)';
    const body = (child: string): SqlFragment => {
      if (!aggregate.predicate || aggregate.variable === undefined) return { sql: '', params: [] };
      const variables = new Map(ctx.variables).set(aggregate.variable, child);
      return compile(aggregate.predicate as ResolvedFilter, { ...ctx, variables });
    };
    const query = correlatedSelect(sub, many, alias, aggregate.span, select, body);
    return { sql: `(${query.sql})`, params: query.params };
  };
  const value = throughScalarHops(sub, hops, start, aggregate, innermost);
  if (hops.length === 0 || aggregate.function !== 'count') return value;
  return { sql: `coalesce(${value.sql}, 0)`, params: value.params };
}

/** One scalar sub-query per to-one hop, `inner` built on the last hop's table. */
function throughScalarHops(
  sub: SubQueryContext,
  hops: ResolvedAggregate['relations'],
  alias: string,
  aggregate: ResolvedAggregate,
  inner: (alias: string) => SqlFragment,
): SqlFragment {
  const [first, ...rest] = hops;
  if (!first) return inner(alias);
  let value: SqlFragment = { sql: '', params: [] };
  // The hop's query selects a constant (MikroORM would inline values in its select list); the value goes in its place.
  const query = correlatedSelect(
    sub,
    first,
    alias,
    aggregate.span,
    () => '1',
    (hop) => {
      value = throughScalarHops(sub, rest, hop, aggregate, inner);
      return { sql: '', params: [] };
    },
  );
  if (!query.sql.startsWith('select 1 from ')) throw planError('unexpected sub-query of an aggregate', aggregate);
  return {
    sql: `(select ${value.sql}${query.sql.slice('select 1'.length)})`,
    params: [...value.params, ...query.params],
  };
}

/**
 * Compile a filter's test of an aggregate: `(<aggregate>) > ?` (the number cast as the dialect needs, see
 * Dialect.numberParameter), `in (…)`, `is null`.
 */
export function aggregateTest(
  filter: ResolvedAggregateTest,
  ctx: PredicateContext,
  compile: FilterCompiler,
): SqlFragment {
  const value = aggregateExpression(filter.aggregate, ctx, compile);
  const param = filter.numberKind ? ctx.dialect.numberParameter(filter.numberKind) : '?';
  const t = filter.test;
  switch (t.kind) {
    case 'compare':
      return { sql: `${value.sql} ${COMPARISON_SQL[t.operator]} ${param}`, params: [...value.params, t.value] };
    case 'in': {
      const list = t.values.map(() => param).join(', ');
      return { sql: `${value.sql} ${t.negated ? 'not in' : 'in'} (${list})`, params: [...value.params, ...t.values] };
    }
    default:
      return { sql: `${value.sql} ${t.negated ? 'is not null' : 'is null'}`, params: value.params };
  }
}

function startAlias(aggregate: ResolvedAggregate, ctx: PredicateContext): string {
  if (aggregate.from === undefined) return ctx.alias;
  const alias = ctx.variables?.get(aggregate.from);
  if (alias === undefined) throw planError('a variable is used outside its any/all', aggregate);
  return alias;
}

function subQueries(ctx: PredicateContext, aggregate: ResolvedAggregate): SubQueryContext {
  if (!ctx.relations) throw planError('relationship paths cannot be planned here', aggregate);
  return ctx.relations;
}

function planError(message: string, aggregate: ResolvedAggregate) {
  return errorAtPosition('invalid_relationship', message, 'filter', aggregate.span);
}
