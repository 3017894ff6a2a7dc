import { type EntityMetadata, type EntityProperty, type FilterQuery, ReferenceKind, Utils } from '@mikro-orm/core';
import { JoinType, raw } from '@mikro-orm/sql';
import { invalidSchema } from '../errors.ts';
import { autoJoinedPaths } from '../orm/qb-state.ts';
import { subQueryBuilder } from '../orm/query-builder.ts';
import { qualify } from './qualify.ts';
import type { SubQueryContext } from './sub-query-context.ts';

/**
 * MikroORM filter conditions that reach through relations (`{ book: { deletedAt: null } }` on Review,
 * `{ tags: { label: 'red' } }` on Book). MikroORM compiles such a condition with auto-joins named by its own alias
 * counter, which cannot sit in a join's ON clause nor on a sub-query alias it does not know. So a related entity's
 * condition is split: its conjuncts on the entity's own columns are qualified in place, and the conjuncts that reach
 * through relations become one `EXISTS` over the entity's own table, correlated by primary key, in which MikroORM
 * compiles them with its usual auto-joins. As in `em.find`, each auto-joined entity's active filters sit in its join's
 * ON clause (only their conjuncts on its own columns: em.find drops nested ones), and a to-many path means "some
 * related row" (the joins may repeat the correlated row, which EXISTS does not count).
 */

/** A joined relation path of a reaching condition, as MikroORM names it (`Review.book`, `Book[0].tags`). */
export interface ReachedPath {
  readonly path: string;
  readonly prop: EntityProperty;
}

/** A condition split into the conjuncts on the entity's own columns and those that reach through relations. */
export interface SplitCondition {
  readonly local: FilterQuery<any> | undefined;
  readonly reaching: FilterQuery<any> | undefined;
}

/** Split a filter condition of `meta` into its own-column conjuncts and its relation-reaching conjuncts. */
export function splitCondition(meta: EntityMetadata, cond: FilterQuery<any> | undefined): SplitCondition {
  if (cond === undefined || !reaches(meta, cond)) return { local: cond, reaching: undefined };
  const local: FilterQuery<any>[] = [];
  const reaching: FilterQuery<any>[] = [];
  for (const part of conjuncts(cond)) (reaches(meta, part) ? reaching : local).push(part);
  return { local: all(local), reaching: all(reaching) };
}

/**
 * Put a related entity's filter condition on `alias` as a condition usable in a WHERE or a join's ON clause:
 * own-column conjuncts qualified with `alias`, relation-reaching ones as a correlated `EXISTS` whose values stay
 * bound parameters.
 *
 * @example conditionOn(ctx, reviewMeta, { deletedAt: null, book: { deletedAt: null } }, 'lq2')
 * // { $and: [{ 'lq2.deletedAt': null }, { [exists (select 1 from "review" as "lq3" inner join "book" as "lq4" on … and "lq4"."deleted_at" is null where "lq3"."id" = "lq2"."id")]: [] }] }
 */
export function conditionOn(
  ctx: SubQueryContext,
  meta: EntityMetadata,
  cond: FilterQuery<any> | undefined,
  alias: string,
): FilterQuery<any> | undefined {
  const { local, reaching } = splitCondition(meta, cond);
  if (reaching === undefined) return local === undefined ? undefined : qualify(local, alias);
  const exists = reachingExists(ctx, meta, reaching, alias);
  const key = raw(`exists (${exists.sql})`, [...exists.params]);
  const through = { [key as unknown as string]: [] } as FilterQuery<any>;
  return local === undefined ? through : { $and: [qualify(local, alias), through] };
}

/**
 * List the relation paths MikroORM auto-joins to compile a reaching condition of `meta` (pivot-only joins left
 * out: they carry no filters), so their targets' filters can be looked up or prepared.
 */
export function reachedPaths(
  ctx: Pick<SubQueryContext, 'em'>,
  meta: EntityMetadata,
  reaching: FilterQuery<any>,
): ReachedPath[] {
  const probe = subQueryBuilder(ctx.em, meta.class, 'lq0');
  probe.where(reaching as never);
  const out: ReachedPath[] = [];
  for (const path of autoJoinedPaths(probe)) {
    if (path.endsWith('[pivot]')) continue;
    out.push({ path, prop: propOfPath(meta, path) });
  }
  return out;
}

function reachingExists(
  ctx: SubQueryContext,
  meta: EntityMetadata,
  reaching: FilterQuery<any>,
  outer: string,
): { sql: string; params: readonly unknown[] } {
  const paths = reachedPaths(ctx, meta, reaching);
  const self = ctx.nextAlias();
  const sub = subQueryBuilder(ctx.em, meta.class, self);
  const aliasOf = new Map<string, string>();
  for (const { path, prop } of paths) {
    const parent = aliasOf.get(path.slice(0, path.lastIndexOf('.'))) ?? self;
    const alias = ctx.nextAlias();
    aliasOf.set(path, alias);
    // The target's filters go into the ON clause, as em.find puts them; only its own-column conjuncts, as em.find.
    const target = prop.targetMeta as EntityMetadata;
    const own = splitCondition(target, ctx.filterOf(prop)).local;
    // The join type MikroORM's auto-join would choose: INNER for a required to-one, LEFT otherwise.
    const toOne = prop.kind === ReferenceKind.MANY_TO_ONE || prop.kind === ReferenceKind.ONE_TO_ONE;
    const type = toOne && !prop.nullable ? JoinType.innerJoin : JoinType.leftJoin;
    // Passing MikroORM's own path makes compiling `reaching` reuse this join instead of auto-joining another.
    sub.join(
      `${parent}.${prop.name}` as never,
      alias,
      (own === undefined ? {} : qualify(own, alias)) as never,
      type,
      path,
    );
  }
  const q = (a: string, column: string) => ctx.platform.quoteIdentifier(`${a}.${column}`);
  const keys = meta.getPrimaryProps().flatMap((p) => p.fieldNames ?? []);
  if (keys.length === 0) throw invalidSchema(`${meta.className} has no primary key`);
  sub.select(raw('1')).where(keys.map((k) => `${q(self, k)} = ${q(outer, k)}`).join(' and '));
  sub.andWhere(reaching as never);
  // Every join the condition needs must be one of ours (which carry the filters): fail rather than drop filters.
  if (autoJoinedPaths(sub).some((path) => !path.endsWith('[pivot]')))
    throw invalidSchema(`cannot apply the filters inside a filter condition of ${meta.className}`);
  return { sql: sub.getQuery(), params: sub.getParams() };
}

/** The relation property a MikroORM join path ends on (`Review.book.author` → Book.author); markers like `[0]` dropped. */
function propOfPath(root: EntityMetadata, path: string): EntityProperty {
  const names = path.split('.').map((segment) => segment.replace(/\[[^\]]*\]/g, ''));
  let meta: EntityMetadata | undefined = root;
  let prop: EntityProperty | undefined;
  for (const name of names.slice(1)) {
    prop = meta?.properties[name];
    meta = prop?.targetMeta;
  }
  if (!prop || !meta) throw invalidSchema(`cannot follow the filter condition path ${path}`);
  return prop;
}

/** Tell whether a condition names a relation in a way that needs a join (anything but a bare foreign-key value). */
function reaches(meta: EntityMetadata, cond: unknown): boolean {
  if (!Utils.isPlainObject(cond)) return false;
  for (const key of Object.keys(cond)) {
    const value = (cond as Record<string, unknown>)[key];
    if (key === '$and' || key === '$or') {
      if (Array.isArray(value) && value.some((c) => reaches(meta, c))) return true;
    } else if (key === '$not') {
      if (reaches(meta, value)) return true;
    } else if (!key.startsWith('$')) {
      const prop = meta.properties[key.includes('.') ? key.slice(key.lastIndexOf('.') + 1) : key];
      if (
        prop &&
        prop.kind !== ReferenceKind.SCALAR &&
        prop.kind !== ReferenceKind.EMBEDDED &&
        !isKeyValue(prop, value)
      )
        return true;
    }
  }
  return false;
}

/** A to-one relation compared by foreign-key value(s) only (`{ author: 1 }`, `{ author: { $in: [1, 2] } }`). */
function isKeyValue(prop: EntityProperty, value: unknown): boolean {
  if (prop.kind !== ReferenceKind.MANY_TO_ONE && !(prop.kind === ReferenceKind.ONE_TO_ONE && prop.owner)) return false;
  if (!Utils.isPlainObject(value)) return true;
  return Object.keys(value).every((k) => k.startsWith('$') && !['$and', '$or', '$not'].includes(k));
}

function conjuncts(cond: FilterQuery<any>): FilterQuery<any>[] {
  if (!Utils.isPlainObject(cond)) return [cond];
  const out: FilterQuery<any>[] = [];
  for (const key of Reflect.ownKeys(cond)) {
    const value = (cond as Record<string | symbol, unknown>)[key];
    if (key === '$and' && Array.isArray(value)) out.push(...value.flatMap((c) => conjuncts(c as FilterQuery<any>)));
    else out.push({ [key]: value } as FilterQuery<any>);
  }
  return out;
}

function all(parts: readonly FilterQuery<any>[]): FilterQuery<any> | undefined {
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { $and: [...parts] };
}
