/**
 * The tiny script `npm run compat` runs in each scratch app where the packed listql was installed: a fresh database
 * (in memory on SQLite; created under LISTQL_PG_URL or LISTQL_MYSQL_URL and dropped after on PostgreSQL and
 * MariaDB), one entity, createEngine and list(), a quoted value, and a refused field.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './compat-run.ts';

/** The script the scratch app runs: a fresh database, one entity, createEngine and list(). */
export const SMOKE = `
import { randomBytes } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';
import { createEngine, filterable, isListError, schema, sortable } from 'listql';

const [driver, adminUrl] = process.argv.slice(2);
const { MikroORM } = await import('@mikro-orm/' + driver);
class Note { id; title; stars; }
const NoteSchema = new EntitySchema({
  class: Note,
  tableName: 'note',
  properties: { id: { type: 'number', primary: true }, title: { type: 'string' }, stars: { type: 'number' } },
});
let database;
const options = { entities: [NoteSchema], debug: false };
if (driver === 'sqlite') options.dbName = ':memory:';
else {
  database = 'listql_compat_' + randomBytes(4).toString('hex');
  const url = new URL(adminUrl);
  url.pathname = '/' + database;
  options.clientUrl = url.toString();
}
const orm = await MikroORM.init(options);
try {
  await orm.schema.ensureDatabase();
  await orm.schema.create();
  const em = orm.em.fork();
  for (const [id, title, stars] of [[1, 'a', 3], [2, "O'Brien", 5], [3, 'c', 4]]) em.create(Note, { id, title, stars });
  await em.flush();
  const policy = schema(Note).expose('title', filterable('eq'), sortable()).expose('stars', filterable(), sortable());
  const notes = createEngine(orm, { policy, maxLimit: 10, allowCount: true });
  const page = await notes.from(orm.em.fork().createQueryBuilder(Note, 'n')).list("filter=stars gte 4&sort=-stars&count=true");
  const got = JSON.stringify(page.items.map((i) => i.id)) + ' count=' + page.page.count;
  if (got !== '[2,3] count=2') throw new Error('unexpected page: ' + JSON.stringify(page));
  const quoted = await notes.from(orm.em.fork().createQueryBuilder(Note, 'n')).list("filter=title eq 'O''Brien'");
  if (quoted.items.length !== 1) throw new Error('unexpected page: ' + JSON.stringify(quoted));
  const bad = await notes.from(orm.em.fork().createQueryBuilder(Note, 'n')).list('filter=nope eq 1').catch((e) => e);
  if (!isListError(bad) || bad.code !== 'unknown_field') throw new Error('expected unknown_field, got ' + bad);
  console.log('smoke ok: ' + driver + ' ' + got);
} finally {
  if (database) await orm.schema.dropDatabase(database).catch(() => {});
  await orm.close(true);
}
`;

/** Where each driver's scratch database is created (the server's admin URL). */
const ADMIN_URLS: Record<string, string> = {
  postgresql: process.env.LISTQL_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  mariadb: process.env.LISTQL_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/',
  mysql: process.env.LISTQL_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/',
};

/** Run the smoke script in `app` (listql and the driver installed there) and return its closing line. */
export function smoke(app: string, driver: string): string {
  writeFileSync(join(app, 'smoke.mjs'), SMOKE);
  return run(
    `the scratch app on ${driver}`,
    process.execPath,
    ['smoke.mjs', driver, ADMIN_URLS[driver] ?? ''],
    app,
  ).trim();
}
