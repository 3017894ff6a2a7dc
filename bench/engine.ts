/**
 * Engine figures: deep cursor pages against page 1 (offset at the same depth for contrast), list() against a
 * hand-written MikroORM QueryBuilder, and a full walk against em.findByCursor.
 */
import { type MikroORM, serialize } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { dialectFor } from '../src/dialect/index.ts';
import { createEngine } from '../src/engine/index.ts';
import { filterable, schema, sortable } from '../src/policy/index.ts';
import { Book, Review } from './model.ts';
import { fmt, noise, type Sample, sideBySide, type Target, verdict } from './stats.ts';

const bookPolicy = schema(Book)
  .expose('id', sortable())
  .expose('title', filterable(), sortable())
  .expose('price', filterable(), sortable())
  .expose('score', filterable(), sortable())
  .expose('createdAt', filterable(), sortable())
  .relation('reviews', schema(Review).expose('stars', filterable()));

/** One printed line: a figure, its ratio and noise, and the target it is checked against (met or MISSED). */
function line(name: string, ratio: Sample, detail: string, target: Target): string {
  return `${name.padEnd(80)} ${`${ratio.median.toFixed(2)}x`.padStart(8)}  ${noise(ratio).padStart(7)}  ${detail}  ${verdict(ratio.median, target)}`;
}

function emOf(orm: MikroORM): SqlEntityManager {
  return orm.em.fork() as SqlEntityManager;
}

/**
 * Every sort the engine figures cover: the primary key, a unique NOT NULL key, a nullable key with repeats (NULLs and
 * duplicates, the keyset predicate's hardest case), and a two-key sort of mixed directions.
 */
export const BENCH_SORTS = ['id', '-createdAt', '-score', 'price,-createdAt'] as const;

/** The index a user would add for the two-key sort (engine.indexes() advises single-field sorts only). */
const TWO_KEY_INDEX =
  'create index if not exists book_price_created_at_desc_id_idx on book (price, created_at desc, id)';

/**
 * Create the indexes engine.indexes() advises for the benchmark's sorts, as a user following the docs would, and for
 * a two-key sort (`price,-createdAt`) the index of its keys and the primary key.
 */
export async function createAdvisedIndexes(orm: MikroORM, sorts: readonly string[]): Promise<void> {
  const advice = createEngine(orm, { policy: bookPolicy }).indexes();
  for (const a of advice)
    if (sorts.includes(a.serves.replace('sort=', ''))) await orm.em.getConnection().execute(a.ddl);
  if (sorts.includes('price,-createdAt')) await orm.em.getConnection().execute(TWO_KEY_INDEX);
  const mysql = dialectFor(orm.em.getPlatform()).name === 'mysql';
  await orm.em.getConnection().execute(mysql ? 'analyze table author, book, review' : 'analyze');
}

/**
 * The engine of the deep-page figures. The offsets reach far past the default cost budget (an offset is charged as
 * the rows it skips): raised here, for the bench's own offsets (minting the deep cursor, and the offset line shown
 * for contrast).
 */
export function deepPageEngine(orm: MikroORM) {
  const limits = { maxSubqueries: 1_000_000 };
  return createEngine(orm, { policy: bookPolicy, maxLimit: 100, maxOffset: 10_000_000, limits });
}

/** The request context of the bench's deep offsets: a statement timeout of two minutes. */
export const SLOW = { statementTimeout: 120_000 };

/**
 * Rounds of each side before a deep page is timed. Both pages take 0.1 to 1 ms, so a few tens of microseconds of
 * JavaScript still being compiled, or one garbage collection, decide a round; 41 rounds (not 15) and 20 warm-up rounds
 * (not 3) steady the median (docs/performance.md, Deep pages: rounds).
 */
const DEEP_WARMUP = 20;

/**
 * Deep pages on a large table: cursor at `depth` vs page 1, and offset at the same depth. `label` names the
 * database in each line; `rounds`: side-by-side rounds of the cursor line.
 */
export async function benchDeepPages(
  orm: MikroORM,
  depth: number,
  sorts: readonly string[],
  label = '',
  rounds = 41,
): Promise<string[]> {
  const books = deepPageEngine(orm);
  const out: string[] = [];
  const on = label ? `, ${label}` : '';
  for (const sort of sorts) {
    const scoped = () => books.from(emOf(orm).createQueryBuilder(Book, 'b'));
    // Mint a cursor at the depth: an offset page carries nextCursor too.
    // The offsets scan `depth` rows: on a busy machine longer than the default statement timeout.
    const minted = await scoped().list({ sort, limit: '20', offset: String(depth - 20) }, SLOW);
    const cursor = minted.page.nextCursor;
    if (!cursor) throw new Error('no cursor at depth');
    const page1 = () => scoped().list({ sort, limit: '20' });
    const deep = () => scoped().list({ sort, limit: '20', cursor });
    const offset = () => scoped().list({ sort, limit: '20', offset: String(depth) }, SLOW);
    const a = await sideBySide(deep, page1, rounds, DEEP_WARMUP);
    const b = await sideBySide(offset, page1, 5, 1);
    out.push(
      line(
        `cursor page at ${depth} / page 1, sort=${sort}${on}`,
        a.ratio,
        `(${fmt(a.a.median, 'ms')} vs ${fmt(a.b.median, 'ms')})`,
        { max: 1.5 },
      ),
      line(
        `offset page at ${depth} / page 1, sort=${sort}${on}`,
        b.ratio,
        `(${fmt(b.a.median, 'ms')} vs ${fmt(b.b.median, 'ms')})`,
        'report',
      ),
    );
  }
  return out;
}

/**
 * list() against the same page written by hand. The primary baseline is what a hand-written endpoint does: a fresh
 * em.fork(), the same where/order, `limit + 1` rows to know hasMore, getResultList() and serialize() of the page.
 * The stricter second line compares with raw `execute('all')` rows (no entities, no serialization, values inlined).
 */
export async function benchOverhead(orm: MikroORM, label: string): Promise<string[]> {
  const books = createEngine(orm, { policy: bookPolicy, maxLimit: 100 });
  const query = { filter: 'price gte 100 and price lt 900', sort: '-createdAt', limit: '20' };
  const viaList = () => books.from(emOf(orm).createQueryBuilder(Book, 'b')).list(query);
  const pageQuery = (em: SqlEntityManager) =>
    em
      .createQueryBuilder(Book, 'b')
      .where({ price: { $gte: 100, $lt: 900 } })
      .orderBy([{ createdAt: 'desc' }, { id: 'asc' }])
      .limit(21);
  const byHand = async () => {
    const rows = await pageQuery(emOf(orm)).getResultList();
    return { items: serialize(rows.slice(0, 20)), hasMore: rows.length > 20 };
  };
  const rawRows = () => pageQuery(emOf(orm)).execute('all');
  const r = await sideBySide(viaList, byHand, 40, 10);
  const strict = await sideBySide(viaList, rawRows, 40, 10);
  // On PostgreSQL every statement runs under its own statement_timeout (one more round trip); show the engine without
  // it too, as an app with a role-level timeout would run it (`statementTimeout: false`). On MariaDB the limit rides
  // on the statement itself (`SET STATEMENT max_statement_time = … FOR`): no round trip, shown for comparison.
  const untimed = createEngine(orm, { policy: bookPolicy, maxLimit: 100, statementTimeout: false });
  const viaUntimed = () => untimed.from(emOf(orm).createQueryBuilder(Book, 'b')).list(query);
  const bare = label === 'SQLite' ? undefined : await sideBySide(viaUntimed, rawRows, 40, 10);
  const lines = [
    line(
      `list() / hand-written (fork, getResultList, serialize), ${label}`,
      r.ratio,
      `(${fmt(r.a.median, 'ms')} vs ${fmt(r.b.median, 'ms')})`,
      { max: 0.8 },
    ),
    line(
      `list() / raw QueryBuilder execute('all') rows, ${label}`,
      strict.ratio,
      `(${fmt(strict.a.median, 'ms')} vs ${fmt(strict.b.median, 'ms')})`,
      { max: 1.1 },
    ),
    ...(bare
      ? [
          line(
            `list() without its statement timeout / raw rows, ${label}`,
            bare.ratio,
            `(${fmt(bare.a.median, 'ms')} vs ${fmt(bare.b.median, 'ms')})`,
            'report',
          ),
        ]
      : []),
  ];
  if (dialectFor(orm.em.getPlatform()).name !== 'mysql') return lines;
  // MySQL/MariaDB: listql sends every statement as a server-side prepared statement (mysql2 execute(), the values in
  // the binary protocol), while MikroORM's execute('all') sends a text query with the values inlined. Separate that
  // protocol cost from the engine's: the same SQL and values through mysql2 execute() on the same pool.
  const pool = (await orm.em.getConnection().getNativeClient()) as unknown as PreparedPool;
  const prepared = () => {
    const { sql, params } = pageQuery(emOf(orm)).toQuery();
    return new Promise<unknown>((resolve, reject) =>
      pool.execute(sql, [...params], (err, rows) => (err ? reject(err) : resolve(rows))),
    );
  };
  const protocol = await sideBySide(prepared, rawRows, 40, 10);
  const engine = await sideBySide(viaList, prepared, 40, 10);
  return [
    ...lines,
    line(
      `raw rows as a prepared statement (mysql2 execute) / as text (execute('all')), ${label}`,
      protocol.ratio,
      `(${fmt(protocol.a.median, 'ms')} vs ${fmt(protocol.b.median, 'ms')})`,
      'report',
    ),
    line(
      `list() / raw rows as a prepared statement, ${label}`,
      engine.ratio,
      `(${fmt(engine.a.median, 'ms')} vs ${fmt(engine.b.median, 'ms')})`,
      'report',
    ),
  ];
}

/** The part of mysql2's callback pool the prepared-statement baseline uses. */
interface PreparedPool {
  execute(sql: string, values: unknown[], cb: (err: Error | null, rows: unknown) => void): void;
}

/**
 * A full walk with items() against em.findByCursor over the same order; counts rows and duplicates. `-score` (the
 * target: NULLs and duplicates, where findByCursor loses rows), `-createdAt` (NOT NULL and unique, where both
 * are correct) to separate the engine's cost from the cost of the keyset predicate on a nullable key, `id`, and a
 * two-key sort of mixed directions (`price,-createdAt`, unique through its second key).
 */
export async function benchWalk(orm: MikroORM, label: string, pageSize: number): Promise<string[]> {
  const books = createEngine(orm, { policy: bookPolicy, maxLimit: pageSize });
  const total = await emOf(orm).count(Book, {});
  const out: string[] = [];
  const walks = [
    { sort: 'id', orderBy: { id: 'asc' } as const },
    { sort: '-score', orderBy: { score: 'desc' } as const },
    { sort: '-createdAt', orderBy: { createdAt: 'desc' } as const },
    { sort: 'price,-createdAt', orderBy: { price: 'asc', createdAt: 'desc' } as const },
  ];
  for (const { sort, orderBy } of walks) {
    const walkList = async () => {
      const seen = new Set<number>();
      let rows = 0;
      for await (const item of books.from(emOf(orm).createQueryBuilder(Book, 'b')).items({ sort }, {}, { pageSize })) {
        seen.add(item.id as number);
        rows++;
      }
      return { rows, unique: seen.size };
    };
    const walkMikro = async () => {
      const em = emOf(orm);
      const seen = new Set<number>();
      let rows = 0;
      let after: string | undefined;
      for (;;) {
        // The order a user would write; findByCursor adds no primary-key tie-breaker of its own.
        const cursor = await em.findByCursor(Book, { first: pageSize, ...(after ? { after } : {}), orderBy });
        for (const b of cursor.items) {
          seen.add(b.id);
          rows++;
        }
        em.clear();
        if (!cursor.hasNextPage || !cursor.endCursor) break;
        after = cursor.endCursor;
      }
      return { rows, unique: seen.size };
    };
    const ours = await walkList();
    const theirs = await walkMikro();
    const r = await sideBySide(walkList, walkMikro, 5, 1);
    out.push(
      line(
        `walk items() / em.findByCursor, sort=${sort}, ${total} rows, ${label}`,
        r.ratio,
        `(${fmt(r.a.median, 'ms')} vs ${fmt(r.b.median, 'ms')})`,
        { max: 0.8 },
      ),
      `  rows returned: listql ${ours.rows} (${ours.unique} distinct), findByCursor ${theirs.rows} (${theirs.unique} distinct) of ${total}`,
    );
  }
  return out;
}
