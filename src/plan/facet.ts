import type { EntityMetadata } from '@mikro-orm/core';
import { raw } from '@mikro-orm/sql';
import type { BoundSchema, ResolvedFacet, ResolvedFilter } from '../bind/types.ts';
import { invalidSchema } from '../errors.ts';
import { aliasesOf, joinsToMany } from '../orm/qb-state.ts';
import { type AnyQueryBuilder, entityManagerOf } from '../orm/query-builder.ts';
import { createAliasGenerator, tableNamesOf } from './alias.ts';
import { conditionOn } from './entity-filter-condition.ts';
import { type ApplyOptions, applyFilter } from './plan-query.ts';
import type { FilterLookup } from './sub-query-context.ts';

/** The column names a facet statement answers with: the value, its label (relation facets with one), the count. */
export const FACET_COLUMNS = Object.freeze({ value: 'lq_value', label: 'lq_label', count: 'lq_count' });

/**
 * Shape a private copy of the scope (base scope, root filters and search on it) into one facet's statement: the
 * facet's filter (the request's without its own clauses) ANDed in, its value grouped, the groups ordered by count
 * (descending), then value (ascending, NULL after the values), and cut to the facet's limit.
 *
 * A field facet groups the root column. A relation facet joins the related rows with their own MikroORM filters
 * in the join condition and groups their key: a LEFT JOIN for a to-one relation (a missing or filtered-out row is
 * the NULL bucket), an inner join for a to-many one (through the pivot table for a many-to-many; rows without
 * related rows count in no bucket). Each root row counts once per value: `count(*)`, or `count(distinct key)` when
 * the base scope itself joins a to-many relation.
 *
 * @example planFacet(qb, bound, year, filter, options, lookup)
 * // select "b"."year" as "lq_value", count(*) as "lq_count" from "book" as "b" where … group by "b"."year"
 * // order by "lq_count" desc, case when "b"."year" is null then 1 else 0 end, "b"."year" limit 10
 */
export function planFacet(
  qb: AnyQueryBuilder,
  bound: BoundSchema,
  facet: ResolvedFacet,
  filter: ResolvedFilter | undefined,
  options: ApplyOptions,
  filterOf: FilterLookup,
): AnyQueryBuilder {
  const platform = bound.platform;
  const q = (name: string) => platform.quoteIdentifier(name);
  const repeats = joinsToMany(qb);
  let value: string;
  let label: string | undefined;
  const target = facet.target;
  if (target.kind === 'field') value = `${q(qb.alias)}.${q(target.field.column)}`;
  else {
    const em = entityManagerOf(qb);
    const nextAlias = createAliasGenerator([qb.alias, ...aliasesOf(qb), ...tableNamesOf(em.getMetadata())]);
    const alias = nextAlias();
    const prop = target.relation.prop;
    const ctx = { em, platform, nextAlias, filterOf };
    const cond = conditionOn(ctx, prop.targetMeta as EntityMetadata, filterOf(prop), alias);
    const path = `${qb.alias}.${target.relation.property}` as never;
    if (target.relation.cardinality === 'one') qb.leftJoin(path, alias, (cond ?? {}) as never);
    else qb.join(path, alias, (cond ?? {}) as never);
    value = `${q(alias)}.${q(target.facet.keyColumn)}`;
    if (target.facet.label) label = `${q(alias)}.${q(target.facet.label.column)}`;
  }
  // After the join: the filter's sub-queries then take aliases the join does not use.
  if (filter) applyFilter(qb, bound, filter, options);
  const counted = repeats ? distinctRoot(bound, q, qb.alias) : 'count(*)';
  const columns = [
    raw(`${value} as ${q(FACET_COLUMNS.value)}`),
    ...(label === undefined ? [] : [raw(`${label} as ${q(FACET_COLUMNS.label)}`)]),
    raw(`${counted} as ${q(FACET_COLUMNS.count)}`),
  ];
  qb.select(columns as never);
  qb.groupBy((label === undefined ? [raw(value)] : [raw(value), raw(label)]) as never);
  qb.orderBy([
    { [raw(counted) as unknown as string]: 'desc' },
    { [raw(`case when ${value} is null then 1 else 0 end`) as unknown as string]: 'asc' },
    { [raw(value) as unknown as string]: 'asc' },
  ] as never);
  qb.limit(facet.limit).offset(undefined);
  return qb;
}

/**
 * How a facet counts root rows when a join may repeat them: each root key once. A to-many facet's own join never
 * repeats a root row within one value (a pivot or child row ties one root row to one value), so `count(*)` would do
 * there too; only a base scope's own to-many join needs the distinct count, which needs a one-column key.
 */
function distinctRoot(bound: BoundSchema, q: (name: string) => string, alias: string): string {
  const [key, ...more] = bound.primaryKey;
  if (!key || more.length > 0)
    throw invalidSchema(
      `facets over a base scope that joins a to-many relation need a primary key of one column; ${bound.entityName} has ${bound.primaryKey.length}`,
    );
  return `count(distinct ${q(alias)}.${q(key.column)})`;
}
