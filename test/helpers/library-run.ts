/**
 * Run a list request over the library fixture the two ways an application can: the engine's way (root filters
 * applied to the base scope, related conditions from prepareFilters, planResolved) and apply()'s way (related
 * conditions computed synchronously, or prepared when a row needs `em.addFilter` filters or async conditions).
 */
import type { EntityManager, FilterOptions } from '@mikro-orm/core';
import type { QueryBuilder } from '@mikro-orm/sql';
import { resolveQuery } from '../../src/bind/index.ts';
import { type ApplyOptions, apply, planResolved, prepareFilters } from '../../src/plan/index.ts';
import type { Policy } from '../../src/policy/index.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { Author, Book, Category, Profile, Publisher, Tag, useTenant } from '../fixtures/library.ts';
import {
  authorPolicy,
  bookPolicy,
  categoryPolicy,
  profilePolicy,
  publisherPolicy,
  tagPolicy,
} from './library-policies.ts';

export const ROOTS = {
  book: { entity: Book, alias: 'b', policy: bookPolicy },
  author: { entity: Author, alias: 'a', policy: authorPolicy },
  profile: { entity: Profile, alias: 'p', policy: profilePolicy },
  tag: { entity: Tag, alias: 't', policy: tagPolicy },
  category: { entity: Category, alias: 'c', policy: categoryPolicy },
  publisher: { entity: Publisher, alias: 'pub', policy: publisherPolicy },
} as const satisfies Record<string, { entity: object; alias: string; policy: Policy }>;

export type Root = keyof typeof ROOTS;

/** One request over the fixture. */
export interface LibraryRequest {
  readonly root: Root;
  readonly filter?: string;
  readonly sort?: string;
  /** MikroORM filter options for the root and every related entity (`{ softDelete: false }`, `false`). */
  readonly filters?: FilterOptions;
  /** Register the tenant filter (`em.addFilter`) and select this tenant (`em.setFilterParams`). */
  readonly tenant?: number;
}

/** How the request is planned: like the engine (`plan`), or through the synchronous `apply()`. */
export type Mode = 'plan' | 'apply';

function values(request: LibraryRequest): Record<string, string> {
  return {
    ...(request.filter === undefined ? {} : { filter: request.filter }),
    ...(request.sort === undefined ? {} : { sort: request.sort }),
  };
}

/** Tell whether a request needs conditions apply() cannot compute alone (em.addFilter filters, async conditions). */
function needsPrepared(request: LibraryRequest): boolean {
  const filters = request.filters;
  const asyncFilter = typeof filters === 'object' && !Array.isArray(filters) && 'labelled' in filters;
  return request.tenant !== undefined || asyncFilter;
}

/** Build the planned QueryBuilder for a request on `em`. */
export async function plan(em: EntityManager, request: LibraryRequest, mode: Mode): Promise<QueryBuilder<any>> {
  const root = ROOTS[request.root];
  if (request.tenant !== undefined) useTenant(em, request.tenant);
  const bound = root.policy.bind(em);
  const base = (em as any).createQueryBuilder(root.entity, root.alias) as QueryBuilder<any>;
  // planResolved leaves the root's own filters to its caller (the engine), with the same options. apply() applies
  // them itself, except `em.addFilter` filters, which only the asynchronous `qb.applyFilters()` can see.
  if (mode === 'plan' || needsPrepared(request)) await base.applyFilters(request.filters ?? {});
  const parsed = parseHTTP(values(request));
  if (mode === 'plan') {
    const resolved = resolveQuery(bound, parsed);
    const filterConditions = await prepareFilters(base, bound, resolved, request.filters);
    return planResolved(base, bound, resolved, { filterConditions }).qb;
  }
  const options: ApplyOptions = needsPrepared(request)
    ? { filterConditions: await prepareFilters(base, bound, undefined, request.filters) }
    : request.filters === undefined
      ? {}
      : { filters: request.filters };
  // These requests test what filters mean, not what they may cost: SQLite's share of the budget for one statement
  // (3 by default) would refuse the nested quantifiers with a comparison at each level.
  return apply(base, bound, parsed, { ...options, limits: { maxSubqueries: 16 } });
}

/** The key a fixture row is reported by: its id, or `tenant/id` for the composite-keyed Publisher. */
export function keyOf(root: Root, row: Record<string, unknown>): number | string {
  return root === 'publisher' ? `${row.tenant}/${row.id}` : (row.id as number);
}
