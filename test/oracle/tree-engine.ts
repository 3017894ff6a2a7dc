/**
 * The engine the tree suites run (property-tree*, isolation, fuzz-db): the library's tree policy (every relation
 * selectable, four levels deep), counts on, and bounds no generated request reaches, since those suites check what a
 * request returns, not whether the default budget accepts it. Plus the scopes a case runs under.
 */
import type { MikroORM } from '@mikro-orm/core';
import fc from 'fast-check';
import { createEngine, type Engine, type EngineConfig } from '../../src/engine/index.ts';
import { Book, useTenant } from '../fixtures/library.ts';
import { NO_BUDGET } from '../helpers/budget.ts';
import { bookTreePolicy } from './library.ts';
import type { Visibility } from './model.ts';

/** Request bounds for correctness over arbitrary trees: the tree policy's depth (4), no row or size budget. */
export const TREE_LIMITS = Object.freeze({
  ...NO_BUDGET,
  maxSelectionDepth: 4,
  maxTreeRows: 1_000_000,
  maxQueryBytes: 1 << 20,
});

/** An engine over bookTreePolicy: up to 100 top rows, counts, no statement timeout, and `extra` options. */
export function treeEngine(orm: MikroORM, extra: Partial<EngineConfig> = {}): Engine {
  return createEngine(orm, {
    policy: bookTreePolicy,
    maxLimit: 100,
    allowCount: true,
    limits: TREE_LIMITS,
    statementTimeout: false,
    ...extra,
  });
}

/**
 * Soft delete on or off, a tenant or none, and Review's relation-path filter `pricedBook` (test/oracle/library.ts)
 * on or off; without tenant and soft delete the filter is off too (`filters: false` switches off everything).
 */
export const visibilityArb: fc.Arbitrary<Visibility> = fc
  .record(
    { softDelete: fc.boolean(), tenant: fc.constantFrom(1, 2), pathFilter: fc.boolean() },
    { requiredKeys: ['softDelete', 'pathFilter'] },
  )
  .map((v) => (v.tenant === undefined && !v.softDelete ? { ...v, pathFilter: false } : v));

/** Say a visibility the way a counter-example reads. */
export function describeVisibility(v: Visibility): string {
  return `soft delete ${v.softDelete ? 'on' : 'off'}, tenant ${v.tenant ?? 'any'}${v.pathFilter ? ', pricedBook' : ''}`;
}

/**
 * The engine scoped as a visibility says, on a fresh fork each call: a tenant through em.addFilter, soft delete on or
 * off, `pricedBook` on or off. With neither tenant nor soft delete, a tenant filter is still registered and
 * `filters: false` must switch it off along with soft delete, at every level.
 */
export function scopedFor(engine: Engine, orm: MikroORM, visibility: Visibility) {
  return () => {
    const em = orm.em.fork();
    const everything = visibility.tenant === undefined && !visibility.softDelete;
    if (visibility.tenant !== undefined || everything) useTenant(em, visibility.tenant ?? 1);
    const base = (em as any).createQueryBuilder(Book, 'b');
    if (everything) return engine.from(base, { filters: false });
    const filters = {
      ...(visibility.softDelete ? {} : { softDelete: false }),
      ...(visibility.pathFilter ? { pricedBook: true } : {}),
    };
    return engine.from(base, { filters });
  };
}
