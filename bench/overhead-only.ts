/**
 * Engine overhead sections alone (a quick look while working on the request path): `node bench/overhead-only.ts`.
 * WALK=1 adds the walk against em.findByCursor on the same small table; DEEP=1 adds deep cursor pages over every
 * bench sort on a table of BENCH_DEEP rows (default 100,000) per database; OVERHEAD=0 leaves the overhead sections
 * out. BENCH_DIALECTS picks the databases.
 */
import { MikroORM as SqliteORM } from '@mikro-orm/sqlite';
import { openDatabase } from '../test/helpers/db.ts';
import { loadBooks } from './data.ts';
import { BENCH_SORTS, benchDeepPages, benchOverhead, benchWalk, createAdvisedIndexes } from './engine.ts';
import { benchEntities } from './model.ts';
import { benchParse } from './parse.ts';

const SMALL = Number(process.env.BENCH_SMALL ?? 10_000);
const DEEP = Number(process.env.BENCH_DEEP ?? 100_000);
const only = (process.env.BENCH_DIALECTS ?? 'sqlite,postgresql,mariadb').split(',');
const overhead = process.env.OVERHEAD !== '0';
if (only.includes('sqlite')) {
  const sqlite = await SqliteORM.init({ entities: benchEntities, dbName: ':memory:' });
  await sqlite.schema.create();
  await loadBooks(sqlite, 'sqlite', SMALL);
  await createAdvisedIndexes(sqlite, BENCH_SORTS);
  if (overhead) for (const l of benchParse(sqlite)) console.log(l);
  if (overhead) for (const l of await benchOverhead(sqlite, 'SQLite')) console.log(l);
  if (process.env.WALK) for (const l of await benchWalk(sqlite, 'SQLite', 100)) console.log(l);
  await sqlite.close();
  if (process.env.DEEP) {
    const large = await SqliteORM.init({ entities: benchEntities, dbName: ':memory:' });
    await large.schema.create();
    await loadBooks(large, 'sqlite', DEEP);
    await createAdvisedIndexes(large, BENCH_SORTS);
    for (const l of await benchDeepPages(large, Math.floor(DEEP * 0.9), BENCH_SORTS, 'SQLite')) console.log(l);
    await large.close();
  }
}
for (const dialect of ['postgresql', 'mariadb'] as const) {
  if (!only.includes(dialect)) continue;
  const db = await openDatabase(dialect, benchEntities);
  try {
    await loadBooks(db.orm, dialect, SMALL);
    await createAdvisedIndexes(db.orm, BENCH_SORTS);
    if (overhead) for (const l of await benchOverhead(db.orm, dialect)) console.log(l);
    if (process.env.WALK) for (const l of await benchWalk(db.orm, dialect, 100)) console.log(l);
  } finally {
    await db.dispose();
  }
  if (!process.env.DEEP) continue;
  const large = await openDatabase(dialect, benchEntities);
  try {
    await loadBooks(large.orm, dialect, DEEP);
    await createAdvisedIndexes(large.orm, BENCH_SORTS);
    for (const l of await benchDeepPages(large.orm, Math.floor(DEEP * 0.9), BENCH_SORTS, dialect)) console.log(l);
  } finally {
    await large.dispose();
  }
}
