import { ReferenceKind } from '@mikro-orm/core';
import { invalidSchema } from '../errors.ts';
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
