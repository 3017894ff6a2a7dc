import type { EntityMetadata } from '@mikro-orm/core';
import type { BoundRelation, ResolvedSortTerm } from '../bind/types.ts';
import { errorAtPosition, type ListError } from '../errors.ts';
import { type AnyQueryBuilder, entityManagerOf } from '../orm/query-builder.ts';
import type { Span } from '../syntax/ast.ts';
import type { AliasGenerator } from './alias.ts';
import { conditionOn } from './entity-filter-condition.ts';
import type { FilterLookup } from './sub-query-context.ts';

/** Tells the alias of the table a to-one path (from the root) ends on. */
export type JoinAliasOf = (relations: readonly BoundRelation[]) => string;

/**
 * LEFT JOIN every to-one path the sort goes through into `qb`, once per distinct path (shared prefixes share
 * their joins). Each join carries its target's active filters in its ON clause, so a root row whose related row is
 * missing or filtered out stays, with NULL keys. To-one joins never duplicate root rows.
 *
 * @example joinSortPaths(qb, [author/name, -publisher/country/code], …)
 * // left join "author" as "lq1" on "b"."author_id" = "lq1"."id" and "lq1"."deleted_at" is null
 * // left join "publisher" as "lq2" on … left join "country" as "lq3" on "lq2"."country_code" = "lq3"."code" and …
 */
export function joinSortPaths(
  qb: AnyQueryBuilder,
  terms: readonly ResolvedSortTerm[],
  nextAlias: AliasGenerator,
  filterOf: FilterLookup,
): JoinAliasOf {
  const aliases = new Map<string, string>();
  const em = entityManagerOf(qb);
  const ctx = { em, platform: em.getPlatform(), nextAlias, filterOf };
  for (const term of terms) {
    // An aggregate is a correlated sub-query in the order itself (aggregate.ts): nothing to join.
    if (term.aggregate) continue;
    let parent = qb.alias;
    let key = '';
    for (const relation of term.target.relations) {
      if (relation.cardinality !== 'one') throw toManySort(relation, term.target.span);
      if (relation.prop.kind !== 'm:1' && relation.prop.kind !== '1:1')
        throw sortError(`relation '${relation.publicName}' cannot be joined`, term.target.span);
      key += `/${relation.property}`;
      let alias = aliases.get(key);
      if (alias === undefined) {
        alias = nextAlias();
        const cond = conditionOn(ctx, relation.prop.targetMeta as EntityMetadata, filterOf(relation.prop), alias);
        qb.leftJoin(`${parent}.${relation.property}` as never, alias, (cond ?? {}) as never);
        aliases.set(key, alias);
      }
      parent = alias;
    }
  }
  return (relations) => {
    const alias = aliases.get(relations.map((r) => `/${r.property}`).join(''));
    if (alias === undefined) throw new Error('listql: a sort path was not joined');
    return alias;
  };
}

/** Build the error for a sort through a to-many relation (binding refuses it first; a hand-built tree lands here). */
export function toManySort(relation: BoundRelation, span: Span): ListError {
  return sortError(`cannot sort through to-many relation '${relation.publicName}'`, span);
}

function sortError(message: string, span: Span): ListError {
  return errorAtPosition('invalid_relationship', message, 'sort', span);
}
