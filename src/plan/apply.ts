import type { QueryBuilder } from '@mikro-orm/sql';
import { resolveQuery } from '../bind/index.ts';
import type { BoundSchema } from '../bind/types.ts';
import type { ParsedQuery } from '../syntax/ast.ts';
import { type AnyQueryBuilder, type ApplyOptions, applyResolved } from './apply-resolved.ts';
import { rootFilterCondition } from './filters.ts';

/**
 * Narrow a copy of `qb` by the parsed query's filter, sort, limit and offset; throws ListError before any query runs.
 * The active MikroORM filters (soft delete, tenants) of the root and of every related entity apply; `options.filters`
 * (e.g. `{ softDelete: false }`) changes them for all alike.
 * Values stay `?` placeholders in the returned QueryBuilder, but MikroORM inlines them when it runs the query:
 * run it with `execute(qb)` / `executeCount(qb)` to send them as real bound parameters.
 *
 * @example
 * apply(em.createQueryBuilder(Product, 'p').where({ tenant: 7 }), bound, parseHTTP({ filter: "stock gt 0", sort: '-price' }))
 * // select "p".* from "product" as "p" where "p"."tenant" = ? and ("p"."stock" > ?)
 * //   order by "p"."price" desc nulls last, "p"."id" asc limit ?
 */
export function apply<T extends object, Q extends AnyQueryBuilder = QueryBuilder<T>>(
  qb: Q,
  bound: BoundSchema,
  parsed: ParsedQuery,
  options?: ApplyOptions,
): Q {
  const out = applyResolved<T, Q>(qb, bound, resolveQuery(bound, parsed), options);
  // A QueryBuilder ignores MikroORM filters unless told; the root follows the same filters as related rows.
  const root = rootFilterCondition(out, options?.filters);
  if (root !== undefined) out.andWhere(root as never);
  return out;
}
