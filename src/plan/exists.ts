import type { EntityProperty, FilterQuery } from '@mikro-orm/core';
import { raw } from '@mikro-orm/sql';
import type { BoundRelation } from '../bind/types.ts';
import { mapFor, setBounded } from '../bounded-map.ts';
import { plainKey } from '../orm/plain-key.ts';
import { subQueryBuilder } from '../orm/query-builder.ts';
import type { Span } from '../syntax/ast.ts';
import { type Link, linkOf } from './correlate.ts';
import { conditionOn, splitCondition } from './entity-filter-condition.ts';
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
  const inner = link.kind === 'pivot' ? ctx.nextAlias() : correlated;
  const key = framesOn ? frameKey(ctx, link, cond, [outerAlias, correlated, inner, select(inner)]) : undefined;
  if (key === undefined) return renderSelect(ctx, link, cond, outerAlias, correlated, inner, select, body);
  const predicate = body(inner);
  const empty = predicate.sql === '';
  // An empty body leaves its conjunct out: that frame is the whole text, kept under a key of its own.
  const frame = frameOf(relation.prop, empty ? `${key}\u0001-` : key, () =>
    renderSelect(ctx, link, cond, outerAlias, correlated, inner, select, () => (empty ? predicate : BODY_FRAGMENT)),
  );
  if (frame === null) return renderSelect(ctx, link, cond, outerAlias, correlated, inner, select, () => predicate);
  if (empty) return { sql: frame.before, params: frame.params };
  return { sql: `${frame.before}${predicate.sql}${frame.after}`, params: [...frame.params, ...predicate.params] };
}

/**
 * The frame of a sub-query: its text around the body (`before` body `after`) and the parameters of the frame's own
 * conditions (the related rows' filter values), which come before the body's. Without a body, `before` is the text.
 */
interface Frame {
  readonly before: string;
  readonly after: string;
  readonly params: readonly unknown[];
}

/** Stands for the body while a frame is rendered; U+0000 never appears in SQL listql builds. */
const BODY = '\u0000lqbody\u0000';
const BODY_FRAGMENT: SqlFragment = { sql: BODY, params: [] };

/** Frames kept per relation: enough for the aliases and filter conditions one API meets, small enough to not matter. */
const MAX_FRAMES = 256;

const frames = new WeakMap<EntityProperty, Map<string, Frame | null>>();

let framesOn = true;

/**
 * Turn frames on or off, returning the previous setting: off, every sub-query is rendered by MikroORM afresh (tests
 * compare the two renderings).
 */
export function useFrames(on: boolean): boolean {
  const was = framesOn;
  framesOn = on;
  return was;
}

/**
 * What a frame's text depends on besides its relation: the schema, the aliases, the select list and the related
 * rows' filter condition. Undefined when the condition is not plain data or reaches through relations (its EXISTS
 * draws aliases of its own): such a sub-query is rendered afresh each time.
 */
function frameKey(ctx: SubQueryContext, link: Link, cond: unknown, parts: readonly string[]): string | undefined {
  const condition = plainKey(cond ?? null);
  if (condition === undefined) return undefined;
  if (cond !== undefined && splitCondition(link.target, cond as never).reaching !== undefined) return undefined;
  const schema = (ctx.em as { schema?: string }).schema ?? '';
  return `${schema}\u0001${parts.join('\u0001')}\u0001${condition}`;
}

/** The frame under `key`, rendered on first use; null when its text is not one whose body can be put in place. */
function frameOf(prop: EntityProperty, key: string, render: () => SqlFragment): Frame | null {
  const cache = mapFor(frames, prop);
  let frame = cache.get(key);
  if (frame === undefined) {
    frame = splitFrame(render());
    setBounded(cache, key, frame, MAX_FRAMES);
  }
  return frame;
}

/**
 * Split a frame rendered with BODY in place of its body (or without a body: the whole text); null unless BODY stands
 * once, at the very end of the WHERE clause, so that the body's values come after the frame's own.
 */
function splitFrame(rendered: SqlFragment): Frame | null {
  const at = rendered.sql.indexOf(BODY);
  if (at < 0) return { before: rendered.sql, after: '', params: rendered.params };
  const after = rendered.sql.slice(at + BODY.length);
  if (rendered.sql.indexOf(BODY, at + 1) >= 0 || !/^\)*$/.test(after)) return null;
  return { before: rendered.sql.slice(0, at), after, params: rendered.params };
}

function renderSelect(
  ctx: SubQueryContext,
  link: Link,
  cond: FilterQuery<any> | undefined,
  outerAlias: string,
  correlated: string,
  inner: string,
  select: (alias: string) => string,
  body: (alias: string) => SqlFragment,
): SqlFragment {
  const targetCond = (alias: string) => conditionOn(ctx, link.target, cond, alias);
  let sub = subQueryBuilder(ctx.em, link.kind === 'direct' ? link.target.class : link.pivot.class, correlated);
  if (link.kind === 'pivot')
    sub = sub.join(`${correlated}.${link.targetProperty}` as never, inner, (targetCond(inner) ?? {}) as never);
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
