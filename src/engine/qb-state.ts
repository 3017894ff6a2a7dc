import { ReferenceKind } from '@mikro-orm/core';
import type { AnyQueryBuilder } from '../plan/apply-resolved.ts';

/**
 * The parts of MikroORM 7's QueryBuilder state the engine reads. `state` is marked internal in its typings; the
 * members are named here, in one place, so a MikroORM upgrade that moves them fails in one file; createEngine
 * checks them on the installed version (compat.ts).
 */
interface QueryBuilderState {
  readonly fields?: readonly unknown[];
  readonly joins: Readonly<Record<string, { readonly prop: { readonly kind: string } }>>;
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
