import type { QueryBuilder } from '@mikro-orm/sql';
import { budgetOf, checkBudget } from '../bind/cost.ts';
import { resolveQuery } from '../bind/index.ts';
import type { BoundSchema } from '../bind/types.ts';
import { dialectFor } from '../dialect/index.ts';
import { asListError } from '../errors.ts';
import type { ParsedQuery } from '../syntax/ast.ts';
import { rootFilterCondition } from './entity-filters.ts';
import { type AnyQueryBuilder, type ApplyOptions, applyResolved } from './plan-query.ts';

/**
 * Narrow a copy of `qb` by the parsed query's filter, sort, limit and offset; throws ListError before any query runs,
 * also when the request exceeds the cost budget (`options.limits`, else the defaults; see docs/security.md).
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
  try {
    const resolved = resolveQuery(bound, parsed);
    checkBudget(resolved, budgetOf(options?.limits), { dialect: dialectFor(bound.platform), oneStatement: true });
    const out = applyResolved<T, Q>(qb, bound, resolved, options);
    // A QueryBuilder ignores MikroORM filters unless told; the root follows the same filters as related rows.
    const root = rootFilterCondition(out, options?.filters, options?.filterConditions);
    if (root !== undefined) out.andWhere(root as never);
    return out;
  } catch (err) {
    // Whatever fails (a filter condition MikroORM cannot compile, a broken base scope) reaches callers as a ListError.
    throw asListError(err);
  }
}
