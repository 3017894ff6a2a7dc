import { ReferenceKind } from '@mikro-orm/core';
import { invalidSchema } from '../errors.ts';
import { plainKey } from './plain-key.ts';
import type { AnyQueryBuilder } from './query-builder.ts';

/**
 * The parts of MikroORM 7's QueryBuilder state listql reads: `state` and `getAliasMap()` are marked internal in its
 * typings. The members are named here, in one place, so a MikroORM upgrade that moves them fails in one file.
 *
 * Checked against MikroORM 7.2.1 (the development pin), 7.2.2 with SQLite and 7.2.5 with PostgreSQL (`npm run
 * compat`). When a version differs: createEngine checks `fields` and `joins` on the installed version and refuses
 * to run (compat.ts); autoJoinedPaths() throws `invalid_schema` rather than drop a related entity's filters.
 */
interface QueryBuilderState {
  readonly fields?: readonly unknown[];
  readonly joins: Readonly<Record<string, { readonly prop: { readonly kind: string } }>>;
  readonly autoJoinedPaths?: unknown;
  readonly groupBy?: readonly unknown[];
  readonly having?: object;
}

function stateOf(qb: AnyQueryBuilder): QueryBuilderState {
  return (qb as unknown as { state: QueryBuilderState }).state;
}

/** Tell whether the QueryBuilder selects columns explicitly (otherwise it selects `alias.*`). */
export function selectsExplicitly(qb: AnyQueryBuilder): boolean {
  return (stateOf(qb).fields?.length ?? 0) > 0;
}

/** Tell whether the QueryBuilder joins a to-many relation, which repeats root rows. */
export function joinsToMany(qb: AnyQueryBuilder): boolean {
  return Object.values(stateOf(qb).joins).some(
    (join) => join.prop.kind === ReferenceKind.ONE_TO_MANY || join.prop.kind === ReferenceKind.MANY_TO_MANY,
  );
}

/**
 * Tell whether every join of the QueryBuilder is to one row at most (many-to-one, one-to-one) and it neither groups
 * nor filters groups: each row it selects is then one root row. A join this cannot tell (no relation) says no.
 */
export function selectsRootRows(qb: AnyQueryBuilder): boolean {
  const state = stateOf(qb);
  if ((state.groupBy?.length ?? 0) > 0 || Object.keys(state.having ?? {}).length > 0) return false;
  return Object.values(state.joins ?? {}).every(
    (join) => join.prop?.kind === ReferenceKind.MANY_TO_ONE || join.prop?.kind === ReferenceKind.ONE_TO_ONE,
  );
}

/**
 * List the relation paths MikroORM auto-joined while compiling the builder's conditions (`Review.book`,
 * `Book[0].tags`). When a MikroORM release no longer records them this way, fail loudly rather than drop filters.
 */
export function autoJoinedPaths(qb: AnyQueryBuilder): readonly string[] {
  const paths = (qb as unknown as { state?: QueryBuilderState }).state?.autoJoinedPaths;
  if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string'))
    throw invalidSchema(
      'this MikroORM version does not expose the joins of a filter condition that reaches through a relation',
    );
  return paths as readonly string[];
}

/** List the aliases the QueryBuilder already uses (its root and every join), so generated aliases can skip them. */
export function aliasesOf(qb: AnyQueryBuilder): string[] {
  return Object.keys(qb.getAliasMap());
}

/** State members that must be empty for builderKey(): what they hold changes the statement or its row mapping. */
const MUST_BE_EMPTY = new Set([
  'joins',
  'populate',
  'ctes',
  'subQueries',
  'fields',
  'joinedProps',
  'unionQuery',
  'cache',
]);

/**
 * A text that identifies everything in a QueryBuilder's state that its statement depends on, for builders whose
 * state is plain data: a root, its alias, conditions, order, flags and hints. Undefined for anything else (joins,
 * populate hints, selected fields, CTEs, sub-queries, unions, a result cache, raw fragments, entities as values):
 * those builders are planned afresh on every request. Two builders with the same key compile to the same SQL with
 * the same parameter values once the same planning is applied to both. Empty members are left out of the text.
 */
export function builderKey(qb: AnyQueryBuilder): string | undefined {
  const state = (qb as unknown as { state?: Record<string, unknown> }).state;
  if (!state || typeof state !== 'object') return undefined;
  let key = String(qb.type);
  for (const name of Object.keys(state)) {
    const value = state[name];
    if (isEmptyMember(value)) continue;
    if (MUST_BE_EMPTY.has(name)) return undefined;
    let text: string | undefined;
    if (name === 'mainAlias') text = aliasKey(value);
    else if (name === 'aliases') {
      text = '';
      for (const [alias, entry] of Object.entries(value as Record<string, unknown>)) {
        const one = aliasKey(entry);
        if (one === undefined) return undefined;
        text += `${alias}=${one};`;
      }
    } else if (value instanceof Set) text = [...value].map(String).sort().join(',');
    else if (typeof value === 'object') text = plainKey(value);
    else text = `${typeof value}:${String(value)}`;
    if (text === undefined) return undefined;
    key += `|${name}=${text}`;
  }
  return key;
}

/** Default and empty values: undefined, null, false, 0, and arrays, maps, sets and objects (symbol keys count) without members. */
function isEmptyMember(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0) return true;
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.length === 0;
  if (value instanceof Map || value instanceof Set) return value.size === 0;
  for (const _ in value) return false;
  return Object.getOwnPropertySymbols(value).length === 0 && Object.getPrototypeOf(value) === Object.prototype;
}

/** An alias entry as text: its name and entity; undefined (not keyable) for a sub-query alias. */
function aliasKey(value: unknown): string | undefined {
  const alias = value as { aliasName?: unknown; meta?: { className?: unknown }; subQuery?: unknown } | undefined;
  if (!alias || alias.subQuery !== undefined || typeof alias.aliasName !== 'string') return undefined;
  return `${alias.aliasName}:${String(alias.meta?.className)}`;
}

/** builderKey() of a fresh builder of one root entity, by alias (a builder in its default state). */
const freshKeys = new WeakMap<object, Map<string, string | null>>();

/**
 * A private copy of a QueryBuilder and its builderKey(): later changes to `qb` cannot reach the copy. A builder in
 * its default state (a root and an alias, nothing added: what most base scopes are) is copied as `clone(true)`, a
 * fresh builder on the same EntityManager, context and connection type, after its builderKey() was found equal to a
 * fresh builder's, which skips copying the whole state; any other builder is copied with `clone()`.
 */
export function privateCopy(qb: AnyQueryBuilder): { readonly copy: AnyQueryBuilder; readonly key: string | undefined } {
  const key = builderKey(qb);
  if (key !== undefined) {
    const meta = qb.mainAlias.meta as object;
    let byAlias = freshKeys.get(meta);
    if (!byAlias) {
      byAlias = new Map();
      freshKeys.set(meta, byAlias);
    }
    let fresh = byAlias.get(qb.alias);
    // Once the fresh key is known, a builder with state of its own goes straight to clone().
    const copy = fresh === undefined || fresh === key ? qb.clone(true) : undefined;
    if (copy && fresh === undefined) {
      fresh = builderKey(copy) ?? null;
      // Bounded: a handful of aliases per entity in any real API; a stranger's aliases are not kept.
      if (byAlias.size < 16) byAlias.set(qb.alias, fresh);
    }
    if (copy && fresh === key) return { copy, key };
  }
  return { copy: qb.clone(), key };
}
