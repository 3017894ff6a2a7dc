import { getRenewed, setBounded } from '../bounded-map.ts';
import type { Dialect, PlanEstimate, PlanFigures, StatementGuard } from '../dialect/index.ts';
import { invalidSchema, limitExceeded } from '../errors.ts';
import { copyBuilder } from '../orm/query-builder.ts';
import type { AnyQueryBuilder } from '../plan/plan-query.ts';
import { executePrefixedOwned } from './execute.ts';

/**
 * The engine option `planCheck` (docs/security.md, Planner estimate): before a data statement of a shape the engine
 * has not seen, ask the database's planner what it expects the statement to cost (EXPLAIN without ANALYZE: nothing
 * runs), and refuse the shape with `limit_exceeded` when the estimate crosses a bound. PostgreSQL, MySQL and MariaDB.
 */
export interface PlanCheckOptions {
  /**
   * Most cost the plan may be expected to have, as if no LIMIT stopped it early: on PostgreSQL the planner's total
   * cost (its units: reading one page in sequence costs 1), on MySQL and MariaDB the rows it expects to examine,
   * sub-queries included.
   */
  readonly maxCost?: number | undefined;
  /** Most rows the plan may be expected to select before the page's LIMIT. */
  readonly maxRows?: number | undefined;
  /** How many plan shapes' verdicts are remembered, least recently used forgotten first (default 256). */
  readonly cacheSize?: number | undefined;
}

/** Verdicts remembered per engine when `cacheSize` is not given. */
export const DEFAULT_PLAN_CACHE = 256;

interface PlanCheck {
  readonly maxCost: number | undefined;
  readonly maxRows: number | undefined;
  readonly cacheSize: number;
  readonly estimate: PlanEstimate;
  /** Per shape (the statement's SQL text, values left out): the refusal's message, or undefined when accepted. */
  readonly verdicts: Map<string, Promise<string | undefined>>;
}

/** Each engine's check, by its settings object (one per createEngine). */
const checks = new WeakMap<object, PlanCheck>();

/**
 * Check the `planCheck` option at createEngine and keep it for the engine whose settings these are. Throws
 * `invalid_schema` when it is malformed, and on SQLite, whose planner gives no estimate: an engine configured to
 * refuse costly plans must not silently run without the check.
 */
export function registerPlanCheck(settings: object, options: unknown, dialect: Dialect): void {
  if (options === undefined) return;
  const given = checkOptions(options);
  if (!dialect.planEstimate)
    throw invalidSchema(
      `engine config: planCheck needs the planner's estimate, which ${dialect.label} does not give; leave it out there ` +
        '(the cost budget in limits is the guard on this database)',
    );
  checks.set(settings, {
    maxCost: given.maxCost,
    maxRows: given.maxRows,
    cacheSize: given.cacheSize ?? DEFAULT_PLAN_CACHE,
    estimate: dialect.planEstimate,
    verdicts: new Map(),
  });
}

function checkOptions(options: unknown): PlanCheckOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw invalidSchema('engine config: planCheck must be an object such as { maxCost: 100000 }');
  const given = options as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (!['maxCost', 'maxRows', 'cacheSize'].includes(key))
      throw invalidSchema(`engine config: planCheck.${key} is not a known setting`);
  for (const key of ['maxCost', 'maxRows'] as const) {
    const value = given[key];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0))
      throw invalidSchema(`engine config: planCheck.${key} must be a positive number`);
  }
  const size = given.cacheSize;
  if (size !== undefined && !(Number.isSafeInteger(size) && (size as number) >= 1))
    throw invalidSchema('engine config: planCheck.cacheSize must be a positive integer');
  if (given.maxCost === undefined && given.maxRows === undefined)
    throw invalidSchema('engine config: planCheck needs maxCost, maxRows or both');
  return given as PlanCheckOptions;
}

/**
 * Before a data statement: undefined at once when the engine has no plan check; else the verdict of the statement's
 * shape, asked of the planner the first time the shape is seen (concurrent requests of a new shape share one EXPLAIN)
 * and remembered. Rejects with `limit_exceeded` naming the estimate when the shape is refused. The shape is the SQL
 * text with its values left out, so the first values of a shape decide for every later request of that shape while
 * its verdict is remembered. An EXPLAIN that fails fails the request and is not remembered.
 */
export function checkPlan(settings: object, qb: AnyQueryBuilder, guard: StatementGuard): Promise<void> | undefined {
  const check = checks.get(settings);
  if (!check) return undefined;
  // The text execution compiles anyway (MikroORM keeps it on the builder): no second compilation.
  const shape = qb.getQuery();
  let verdict = getRenewed(check.verdicts, shape);
  if (!verdict) {
    verdict = explain(check, copyBuilder(qb), guard);
    setBounded(check.verdicts, shape, verdict, check.cacheSize);
    verdict.catch(() => {
      if (check.verdicts.get(shape) === verdict) check.verdicts.delete(shape);
    });
  }
  return verdict.then((refusal) => {
    if (refusal !== undefined) throw limitExceeded(refusal);
  });
}

/** Ask the planner about one statement and judge its figures; an unreadable answer is accepted. */
async function explain(check: PlanCheck, qb: AnyQueryBuilder, guard: StatementGuard): Promise<string | undefined> {
  // Shared by every request of the shape in flight: one client going away must not fail the others.
  const shared: StatementGuard = { timeout: guard.timeout, settings: guard.settings };
  const rows = await executePrefixedOwned(qb, check.estimate.explainPrefix, shared);
  const figures = check.estimate.read(rows);
  return figures && judge(check, figures);
}

function judge(check: PlanCheck, figures: PlanFigures): string | undefined {
  const advice = 'ask for less (a narrower filter, fewer relationship conditions, no count or sort through relations)';
  if (check.maxCost !== undefined && figures.cost > check.maxCost)
    return (
      `the database estimates this request at ${Math.round(figures.cost)} (${check.estimate.costName}), over this ` +
      `endpoint's planCheck.maxCost (${check.maxCost}): ${advice}`
    );
  if (check.maxRows !== undefined && figures.rows > check.maxRows)
    return (
      `the database expects this request to select ${Math.round(figures.rows)} rows before its limit, over this ` +
      `endpoint's planCheck.maxRows (${check.maxRows}): ${advice}`
    );
  return undefined;
}
