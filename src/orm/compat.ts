import { type EntityManager, type EntityMetadata, isRaw, ReferenceKind, Utils } from '@mikro-orm/core';
import { type QueryBuilder, raw, type SqlEntityManager, sql } from '@mikro-orm/sql';
import { dialectFor } from '../dialect/index.ts';
import { invalidSchema, queryFailed } from '../errors.ts';
import { captureStatement } from './bound-execution.ts';
import { bindStatement } from './bound-sql.ts';
import { connectionOf } from './connection.ts';
import { joinsToMany, selectsExplicitly } from './qb-state.ts';

/**
 * Fences around the MikroORM internals that bound execution mirrors (see bound-sql.ts, bound-execution.ts,
 * connection.ts, qb-state.ts). listql sends client values as bound parameters, which MikroORM's own execute() does
 * not: it relies on members of QueryBuilder and of the SQL connection that MikroORM does not promise to keep across
 * 7.x releases. These checks prove, on the MikroORM actually installed, that those members exist and behave as
 * listql expects. When one does not, listql refuses to run queries (it never falls back to MikroORM's inlining
 * path) and says why.
 *
 * Checked against MikroORM 7.2.1 (the development pin), 7.2.2 with SQLite and 7.2.5 with PostgreSQL (`npm run
 * compat`). When a version differs, that refusal is the safe path: createEngine throws `invalid_schema` naming the
 * mismatch, and a query run without an engine fails with `execution_failed` before it is sent.
 */

/** The connection members bound execution calls (connection.ts); each must be a function. */
const CONNECTION_METHODS = ['ensureConnection', 'getClient', 'getPlatform', 'executeQuery', 'transformRawResult'];

/** Values the bind probe sends: none may reach the SQL text, and all must come back as parameters, in order. */
const PROBE_VALUES = ['lq-probe-a', 2, "lq-probe-b'x", 'lq-probe-c?', 3] as const;

/**
 * Check, once at createEngine, that the installed MikroORM exposes what bound execution reads and compiles SQL the
 * way the placeholder rewrite understands it, throwing `invalid_schema` naming the mismatch otherwise; and start the
 * execution-path probe every query awaits (checkExecutionRoute).
 */
export function checkBoundExecution(em: EntityManager, meta: EntityMetadata): void {
  const problem = boundExecutionProblem(em, meta);
  if (problem === undefined) {
    checkExecutionRoute(builder(em, meta, 'lq_probe')).catch(() => {});
    return;
  }
  throw invalidSchema(
    `listql cannot send bound parameters with MikroORM ${ormVersion()}: ${problem}. It refuses to run rather than ` +
      'inline values into SQL; see docs/compatibility.md for the tested MikroORM versions',
  );
}

/** Return what the installed MikroORM does differently from what bound execution relies on, or undefined. */
export function boundExecutionProblem(em: EntityManager, meta: EntityMetadata): string | undefined {
  try {
    return shapeProblem(em, meta) ?? rewriteProblem(em, meta);
  } catch (err) {
    return `the self-check failed (${(err as Error).message})`;
  }
}

function shapeProblem(em: EntityManager, meta: EntityMetadata): string | undefined {
  const qb = builder(em, meta, 'lq_probe');
  // connection.ts: QueryBuilder.getConnection() picks the connection execute() runs on; toQuery() compiles it.
  for (const name of ['getConnection', 'toQuery', 'execute', 'clone', 'cache'])
    if (typeof (qb as unknown as Record<string, unknown>)[name] !== 'function')
      return `QueryBuilder.${name}() is missing`;
  const connection = connectionOf(qb) as unknown as Record<string, unknown>;
  // A dialect's executor may need more of the connection (MySQL's runs on the driver's mysql2 pool).
  const own = dialectFor(em.getPlatform()).connectionMethods;
  for (const name of [...CONNECTION_METHODS, ...own, 'execute'])
    if (typeof connection[name] !== 'function') return `the SQL connection has no ${name}() method`;
  if (typeof (connection.config as { get?: unknown } | undefined)?.get !== 'function')
    return 'the SQL connection has no config';
  // qb-state.ts: the QueryBuilder's `state` holds `fields` (explicit selection) and `joins` (by alias, with prop).
  const state = (qb as unknown as { state?: { joins?: unknown; fields?: unknown } }).state;
  if (typeof state?.joins !== 'object' || state.joins === null) return 'QueryBuilder state has no joins';
  if (selectsExplicitly(qb)) return 'QueryBuilder state reports a selection before any select()';
  qb.select(raw('1'));
  if (!selectsExplicitly(qb)) return 'QueryBuilder state does not record select()';
  const many = meta.props.find((p) => p.kind === ReferenceKind.ONE_TO_MANY || p.kind === ReferenceKind.MANY_TO_MANY);
  if (joinsToMany(qb)) return 'QueryBuilder state reports a join before any join()';
  if (many) {
    qb.leftJoin(`lq_probe.${many.name}`, 'lq_probe_m');
    if (!joinsToMany(qb)) return 'QueryBuilder state does not record a to-many join';
  }
  return undefined;
}

/**
 * bound-sql.ts reads MikroORM's placeholders (`?` values, `??` identifiers, arrays, nested raw fragments) as
 * platform.formatQuery() does. Compile a query holding each kind, bind it, then put the values back with
 * formatQuery() one at a time: the text must equal what formatQuery() makes of the whole query.
 */
function rewriteProblem(em: EntityManager, meta: EntityMetadata): string | undefined {
  const [a, b, c, d, e] = PROBE_VALUES;
  const pk = `${meta.primaryKeys[0]}`;
  const sub = builder(em, meta, 'lq_probe_s')
    .select(raw('1'))
    .where({ [raw('?? = ?', [`lq_probe_s.${pk}`, c])]: [] });
  const qb = builder(em, meta, 'lq_probe')
    .select(raw('1'))
    .where({ [raw('?? in (?)', [`lq_probe.${pk}`, [a, b]])]: [] })
    .andWhere({ [sql`exists (${sub.toRaw()})`]: [] })
    .andWhere('? <> ?', [d, e]);
  const compiled = (qb as unknown as { toQuery(): { sql: unknown; params: unknown } }).toQuery();
  if (typeof compiled.sql !== 'string' || !Array.isArray(compiled.params))
    return 'QueryBuilder.toQuery() no longer returns SQL text and a parameter list';
  const platform = em.getPlatform();
  const bound = bindStatement(platform, compiled.sql, compiled.params);
  if (bound.parameters.length !== PROBE_VALUES.length || bound.parameters.some((v, i) => v !== PROBE_VALUES[i]))
    return 'its compiled SQL carries values the placeholder rewrite does not find';
  for (const value of PROBE_VALUES)
    if (typeof value === 'string' && bound.sql.includes(value)) return 'a value stayed in the SQL text';
  const placeholder = dialectFor(platform).numberedPlaceholders ? /\$\d+/g : /\?/g;
  let next = 0;
  const reinlined = bound.sql.replace(placeholder, (match) =>
    platform.formatQuery('?', [bound.parameters[match === '?' ? next++ : Number(match.slice(1)) - 1]]),
  );
  if (reinlined !== platform.formatQuery(compiled.sql, compiled.params))
    return 'its placeholders no longer read as the placeholder rewrite reads them';
  return undefined;
}

/** Results of the execution-path probe, per QueryBuilder class (one MikroORM copy answers once per process). */
const routes = new WeakMap<object, Promise<void>>();

/**
 * Make sure, once per QueryBuilder class, that QueryBuilder.execute() hands its SQL to the connection that
 * getConnection() returns, through that connection's execute(), which is where bound execution takes over; reject
 * with `execution_failed` (and never run the query) otherwise.
 */
export function checkExecutionRoute(qb: QueryBuilder<any>): Promise<void> {
  const key = Object.getPrototypeOf(qb) as object;
  let route = routes.get(key);
  if (!route) {
    route = probeRoute(qb);
    routes.set(key, route);
  }
  return route;
}

/**
 * Run a copy of the builder against a stand-in connection that records the call and touches no database. Any
 * other connection method the builder reaches for ends the probe: listql would not route it.
 */
async function probeRoute(qb: QueryBuilder<any>): Promise<void> {
  let seen: { sql: unknown; params: unknown; method: unknown } | undefined;
  const standIn: Record<string, unknown> = {
    // connection.ts (ConnectionExecute): execute(sql, params, method, transaction context, logger context).
    execute: async (query: unknown, params: unknown, method: unknown) => {
      seen = { sql: query, params, method };
      return [];
    },
    transactional: (run: (trx: unknown) => unknown) => run(undefined),
  };
  const connection = new Proxy(standIn, {
    get(target, key) {
      if (typeof key === 'string' && key in target) return target[key];
      if (key === 'then') return undefined;
      throw new Error(`it called connection.${String(key)}, which listql does not route`);
    },
  });
  // A fresh builder on the same entity, connection type and transaction, holding no client value: should MikroORM
  // run it around the stand-in after all, the database sees `where 1 = 0` and nothing else. clone() builds a plain
  // QueryBuilder; the probe must behave as this builder's own class does.
  const probe = Object.setPrototypeOf(qb.clone(true), Object.getPrototypeOf(qb)) as QueryBuilder<any>;
  probe.where('1 = 0').cache(false);
  Object.defineProperty(probe, 'getConnection', { value: () => connection, configurable: true });
  // Callers of execute() without an engine (apply() users) get createEngine's checks here, once per class.
  const em = (qb as unknown as { em?: EntityManager }).em;
  const meta = qb.mainAlias?.meta;
  let problem = em && meta ? boundExecutionProblem(em, meta) : undefined;
  if (problem === undefined)
    try {
      await probe.execute('all', false);
      if (!seen) problem = 'QueryBuilder.execute() did not run its SQL through connection.execute()';
      else if (
        !(typeof seen.sql === 'string' || isRaw(seen.sql)) ||
        !(seen.params === undefined || Array.isArray(seen.params))
      )
        problem = 'QueryBuilder.execute() passes the connection something other than SQL text and parameters';
      else if (seen.method !== 'all') problem = 'QueryBuilder.execute() no longer passes its method to the connection';
    } catch (err) {
      problem = `QueryBuilder.execute() went another way (${(err as Error).message})`;
    }
  if (problem !== undefined)
    throw queryFailed(
      new Error(
        `listql cannot send bound parameters with MikroORM ${ormVersion()}: ${problem}. It refuses to run rather ` +
          'than inline values into SQL; see docs/compatibility.md for the tested MikroORM versions',
      ),
    );
}

/** Results of the toQuery() probe, per QueryBuilder class. */
const sendsToQuery = new WeakMap<object, Promise<boolean>>();

/**
 * Tell, once per QueryBuilder class, whether QueryBuilder.execute() sends the statement its own toQuery() returns
 * (MikroORM's execute() reads `this.toQuery()`). A nested level's compiled statement (engine/tree/compiled.ts) is
 * sent by replacing toQuery() on one builder; where this does not hold, levels are planned afresh for every request
 * instead, which only costs time. The probe replaces toQuery() on a throwaway builder with a recognisable statement
 * and records what execute() hands the connection; nothing reaches the database.
 *
 * Checked against MikroORM 7.2.1 (the development pin). When a version differs, the probe answers false and the
 * tree builds each statement as any other query is built.
 */
export function executeSendsToQuery(qb: QueryBuilder<any>): Promise<boolean> {
  const key = Object.getPrototypeOf(qb) as object;
  let sends = sendsToQuery.get(key);
  if (!sends) {
    sends = probeToQuery(qb).catch(() => false);
    sendsToQuery.set(key, sends);
  }
  return sends;
}

async function probeToQuery(qb: QueryBuilder<any>): Promise<boolean> {
  const probe = Object.setPrototypeOf(qb.clone(true), Object.getPrototypeOf(qb)) as QueryBuilder<any>;
  probe.where('1 = 0').cache(false);
  const [value] = PROBE_VALUES;
  const query = { sql: 'select ? as lq_probe_q', params: [value] };
  Object.defineProperty(probe, 'toQuery', { value: () => query, configurable: true });
  const sent = await captureStatement(probe, 'all', false);
  return sent.sql.includes('lq_probe_q') && sent.parameters.length === 1 && sent.parameters[0] === value;
}

function builder(em: EntityManager, meta: EntityMetadata, alias: string): QueryBuilder<any> {
  return (em as SqlEntityManager).createQueryBuilder(meta.class, alias);
}

function ormVersion(): string {
  try {
    return Utils.getORMVersion();
  } catch {
    return '(unknown version)';
  }
}
