import { raw } from '@mikro-orm/sql';
import type { BoundRelation } from '../bind/types.ts';
import { subQueryBuilder } from '../orm/query-builder.ts';
import type { Span } from '../syntax/ast.ts';
import { linkOf } from './correlate.ts';
import { conditionOn } from './entity-filter-condition.ts';
import type { SqlFragment } from './fragment.ts';
import type { SubQueryContext } from './sub-query-context.ts';

/**
 * Build `exists (select 1 from <the relation's rows> where <correlation to outerAlias> and <target filters> and
 * <body>)`; `body` receives the alias of the related table. M:N reads the pivot table and joins the target, whose
 * filters go into the join. The sub-query is compiled by MikroORM, so filter conditions keep their values as
 * bound parameters, and it never joins anything into the enclosing query.
 *
 * @example existsThrough(ctx, author, 'b', span, (a) => ({ sql: `"${a}"."name" = ?`, params: ['Ann'] }))
 * // exists (select 1 from "author" as "lq1" where "lq1"."id" = "b"."author_id" and "lq1"."deleted_at" is null and "lq1"."name" = ?)
 */
export function existsThrough(
  ctx: SubQueryContext,
  relation: BoundRelation,
  outerAlias: string,
  span: Span,
  body: (alias: string) => SqlFragment,
): SqlFragment {
  const sub = correlatedSelect(ctx, relation, outerAlias, span, () => '1', body);
  return { sql: `exists (${sub.sql})`, params: sub.params };
}

/**
 * Build `select <select(alias)> from <the relation's rows> where <correlation to outerAlias> and <target filters> and
 * <body(alias)>`, `alias` being the related table's: the sub-query of existsThrough, and of an aggregate
 * (`select count(*) …`). `select` must hold no values (MikroORM would inline them); `body`'s stay bound.
 */
export function correlatedSelect(
  ctx: SubQueryContext,
  relation: BoundRelation,
  outerAlias: string,
  span: Span,
  select: (alias: string) => string,
  body: (alias: string) => SqlFragment,
): SqlFragment {
  const link = linkOf(relation.prop, ctx.em.getMetadata(), span);
  const cond = ctx.filterOf(relation.prop);
  const correlated = ctx.nextAlias();
  const targetCond = (alias: string) => conditionOn(ctx, link.target, cond, alias);
  let sub = subQueryBuilder(ctx.em, link.kind === 'direct' ? link.target.class : link.pivot.class, correlated);
  let inner = correlated;
  if (link.kind === 'pivot') {
    inner = ctx.nextAlias();
    sub = sub.join(`${correlated}.${link.targetProperty}` as never, inner, (targetCond(inner) ?? {}) as never);
  }
  const q = (alias: string, column: string) => ctx.platform.quoteIdentifier(`${alias}.${column}`);
  const correlation = link.pairs.map((p) => `${q(correlated, p.inner)} = ${q(outerAlias, p.outer)}`).join(' and ');
  sub.select(raw(select(inner))).where(correlation);
  const direct = link.kind === 'direct' ? targetCond(correlated) : undefined;
  if (direct) sub.andWhere(direct as never);
  const predicate = body(inner);
  // The string form keeps `?` placeholders and their values apart; an empty body only asks whether the row exists.
  if (predicate.sql !== '') sub.andWhere(predicate.sql, [...predicate.params]);
  return { sql: sub.getQuery(), params: sub.getParams() };
}

/** Go through to-one hops from `alias`, one nested EXISTS per hop, and build `body` on the last table. */
export function throughHops(
  ctx: SubQueryContext,
  hops: readonly BoundRelation[],
  alias: string,
  span: Span,
  body: (alias: string) => SqlFragment,
): SqlFragment {
  const [first, ...rest] = hops;
  if (!first) return body(alias);
  return existsThrough(ctx, first, alias, span, (inner) => throughHops(ctx, rest, inner, span, body));
}
