/**
 * Facets (docs/facets.md, docs/performance.md): on the bookstore of bench/worst.ts (`FACET_BOOKS`, default 100,000
 * books, 2 tags each, one tenant of two selected by the base query as bench/burst.ts does) with the advised indexes,
 * a filtered request with `facets=author,year,tags` and `limit=0` (the facet statements alone), on each dialect:
 *
 * - listql's three facet statements ÷ the same three GROUP BY statements written by hand and sent through MikroORM's
 *   connection (target ≤ 1.2×: listql adds only its request checks and the NULL-bucket ordering term);
 * - the three hand-written statements one by one ÷ the same three as one `UNION ALL` statement, which is what
 *   "one grouped statement" would send (reported: it decides whether facets are sent one statement per facet).
 *
 * Run alone with `npx node bench/facets.ts`, or as part of `npm run bench`. `FACET_DIALECTS` (all): a comma-separated
 * list of sqlite, postgresql, mariadb.
 */
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { Author, Book, ENTITIES, Tag } from '../examples/bookstore/entities.ts';
import { createEngine, facetable, filterable, schema, sortable } from '../src/index.ts';
import { openDatabase } from '../test/helpers/db.ts';
import { fmt, noise, sideBySide, verdict } from './stats.ts';
import { loadBookstore } from './worst.ts';

type Dialect = 'sqlite' | 'postgresql' | 'mariadb';

/** listql's facet statements ÷ the same statements written by hand. */
export const FACETS_TARGET = 1.2;

const FILTER = 'price lt 25';
const PRICE = 25;
const TENANT = 1;
const TOP = 10;

const facetPolicy = schema(Book)
  .expose('id', sortable())
  .expose('title', filterable(), sortable())
  .expose('year', filterable(), sortable(), facetable())
  .expose('price', filterable(), sortable())
  .relation('author', schema(Author).expose('id').expose('name', filterable()), { facet: { label: 'name' } })
  .relation('tags', schema(Tag).expose('id').expose('name', filterable()), { facet: { label: 'name' } });

/** The three facets' statements as a developer would write them (same joins, filters and order; `?` values). */
function handWritten(dialect: Dialect): { year: string; author: string; tags: string; union: string } {
  const where = 'b.tenant = ? and b.deleted_at is null and b.price < ?';
  const year = `select b.year as v, null as l, count(*) as c from book b where ${where} group by b.year order by c desc, b.year limit ${TOP}`;
  const author =
    'select a.id as v, a.name as l, count(*) as c from book b left join author a on a.id = b.author_id and a.deleted_at is null ' +
    `where ${where} group by a.id, a.name order by c desc, a.id limit ${TOP}`;
  const tags =
    'select t.id as v, t.name as l, count(*) as c from book b join book_tags bt on bt.book_id = b.id join tag t on t.id = bt.tag_id ' +
    `where ${where} group by t.id, t.name order by c desc, t.id limit ${TOP}`;
  const text = dialect === 'mariadb' ? 'char' : 'varchar(255)';
  const part = (name: string, sql: string) =>
    `select '${name}' as f, v, cast(l as ${text}) as l, c from (${sql}) as ${name}_facet`;
  const union = [part('year', year), part('author', author), part('tags', tags)].join(' union all ');
  return { year, author, tags, union };
}

async function runOn(dialect: Dialect, books: number): Promise<string[]> {
  const db = await openDatabase(dialect, ENTITIES);
  try {
    const orm = db.orm as MikroORM;
    const t0 = performance.now();
    await loadBookstore(orm, dialect, books);
    const engine = createEngine(orm, { policy: facetPolicy });
    const conn = orm.em.getConnection();
    for (const advice of engine.indexes()) await conn.execute(advice.ddl);
    await conn.execute(dialect === 'mariadb' ? 'analyze table author, tag, book, book_tags' : 'analyze');
    const loaded = ((performance.now() - t0) / 1000).toFixed(1);
    const em = orm.em.fork() as SqlEntityManager;
    const scoped = engine.from(em.createQueryBuilder(Book, 'b').where({ tenant: TENANT }));
    const query = { filter: FILTER, facets: 'author,year:10,tags', limit: '0' };
    const sql = handWritten(dialect);
    const values = [TENANT, PRICE];
    const byHand = async () => {
      for (const statement of [sql.author, sql.year, sql.tags]) await conn.execute(statement, values);
    };
    const grouped = () => conn.execute(sql.union, [...values, ...values, ...values]);
    // The answers agree before anything is timed.
    const page = await scoped.list(query);
    const hand = (await conn.execute(sql.year, values)) as { v: number; c: number | string }[];
    const agree =
      JSON.stringify(page.facets?.year?.map((b) => [b.value, b.count])) ===
      JSON.stringify(hand.map((r) => [Number(r.v), Number(r.c)]));
    const facets = await sideBySide(() => scoped.list(query), byHand);
    const union = await sideBySide(byHand, grouped);
    const ratio = facets.ratio.median;
    return [
      `(${books.toLocaleString('en-US')} books loaded and indexed in ${loaded} s; year facet ${agree ? 'agrees' : 'DISAGREES'} with the hand-written statement)`,
      `facets=author,year,tags, filter=${FILTER}, limit=0: listql ${fmt(facets.a.median, 'ms')} ${noise(facets.a)}, ` +
        `by hand ${fmt(facets.b.median, 'ms')} ${noise(facets.b)}: ${ratio.toFixed(2)}x   ${verdict(ratio, { max: FACETS_TARGET })}`,
      `one statement per facet ${fmt(union.a.median, 'ms')} ÷ one UNION ALL statement ${fmt(union.b.median, 'ms')}: ` +
        `${union.ratio.median.toFixed(2)}x ${noise(union.ratio)}   report`,
    ];
  } finally {
    await db.dispose();
  }
}

/** Measure facets on each of `dialects`; used by bench/run.ts and runnable alone. */
export async function benchFacets(
  dialects: readonly Dialect[] = ['sqlite', 'postgresql', 'mariadb'],
  books = Number(process.env.FACET_BOOKS ?? 100_000),
): Promise<Partial<Record<Dialect, string[]>>> {
  const out: Partial<Record<Dialect, string[]>> = {};
  for (const dialect of dialects) out[dialect] = await runOn(dialect, books);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const named = (process.env.FACET_DIALECTS ?? 'sqlite,postgresql,mariadb').split(',').map((d) => d.trim());
  for (const dialect of named as Dialect[]) {
    const result = await benchFacets([dialect]);
    console.log(`\n## Facets, ${dialect}`);
    for (const l of result[dialect] ?? []) console.log(l);
  }
}
