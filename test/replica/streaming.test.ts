/**
 * listql on a real PostgreSQL streaming replica: a private primary and two hot standbys (test/helpers/replica.ts),
 * MikroORM configured with `replicas`. Replay is paused on the standbys at two different points, so the three servers
 * hold different data, and each answer shows where it was read:
 *
 *   primary   notes 1–35, author 2 named 'Bob (batch 2)', author 1 'Ann (primary)'
 *   standby2  notes 1–33, author 2 named 'Bob (batch 1)', author 1 'Ann'
 *   standby1  notes 1–30, author 2 named 'Bob', author 1 'Ann'
 *
 * Every server logs every statement it receives: the tests also read there which server ran a request's statements
 * (a marker value in the request's filter), and that no standby ever received a write.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { EntitySchema, type MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openBookstore } from '../../examples/bookstore/database.ts';
import { Book } from '../../examples/bookstore/entities.ts';
import { createEngine } from '../../src/engine/index.ts';
import { graphqlSchema } from '../../src/graphql/index.ts';
import { filterable, schema, selectable, sortable } from '../../src/policy/index.ts';
import { postQuery, serveSchema } from '../helpers/graphql-serve.ts';
import { type ReplicaCluster, startReplicaCluster } from '../helpers/replica.ts';

class Author {
  id!: number;
  name!: string;
}

class Note {
  id!: number;
  title!: string;
  author!: Author;
}

const AuthorSchema = new EntitySchema<Author>({
  class: Author,
  tableName: 'author',
  properties: { id: { type: 'integer', primary: true, autoincrement: false }, name: { type: 'string' } },
});

const NoteSchema = new EntitySchema<Note>({
  class: Note,
  tableName: 'note',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    title: { type: 'string' },
    author: { kind: 'm:1', entity: () => Author },
  },
});

const authorPolicy = schema(AuthorSchema).expose('id', filterable(), sortable()).expose('name', filterable());
const notePolicy = schema(NoteSchema)
  .expose('id', filterable(), sortable())
  .expose('title', filterable(), sortable())
  .relation('author', authorPolicy, selectable());

const DATABASE = 'listql';
const BOOKSTORE = 'bookstore';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** How many notes each server holds, and the name it gives author 2, once the lag is set up. */
const STANDBY1 = { notes: 30, bob: 'Bob' } as const;
const STANDBY2 = { notes: 33, bob: 'Bob (batch 1)' } as const;
const PRIMARY = { notes: 35, bob: 'Bob (batch 2)' } as const;
const LAGGED_BOOK = 'A book the standbys have not replayed';

interface Context {
  cluster: ReplicaCluster;
  orm: MikroORM;
  failed?: unknown;
}

const s = suite<Context>('streaming replica [postgresql]', {} as Context);

s.before(async (ctx) => {
  try {
    ctx.cluster = await startReplicaCluster({ standbys: 2 });
    await setUpLag(ctx.cluster);
    ctx.orm = await ormOn(ctx.cluster);
  } catch (err) {
    // Reported by the first test: uvu shows a failing hook only as tests not run.
    ctx.failed = err;
  }
});
s.after(async (ctx) => {
  await ctx.orm?.close(true);
  await ctx.cluster?.stop();
});
s.before.each((ctx) => {
  if (ctx.failed) throw ctx.failed;
});

/** Seed both databases, let both standbys catch up, then pause them at two different points. */
async function setUpLag(cluster: ReplicaCluster): Promise<void> {
  const [standby1, standby2] = cluster.standbys as [ReplicaCluster['primary'], ReplicaCluster['primary']];
  await cluster.sql(cluster.primary, `create database ${DATABASE}`);
  const seedOrm = await ormOn(cluster, { replicas: [] });
  await seedOrm.schema.create();
  const authors = ['Ann', 'Bob', 'Cy', 'Di', 'Ed'];
  await insertNotes(seedOrm, 1, 30, authors);
  const bookstore = await openBookstore({ databaseUrl: cluster.primary.url(BOOKSTORE), createDatabase: true });
  await cluster.caughtUp();

  await cluster.pauseReplay(standby1);
  await insertNotes(seedOrm, 31, 33);
  await seedOrm.em.fork().nativeUpdate(Author, { id: 2 }, { name: STANDBY2.bob });
  await cluster.caughtUp([standby2]);
  await cluster.pauseReplay(standby2);

  await insertNotes(seedOrm, 34, 35);
  await seedOrm.em.fork().nativeUpdate(Author, { id: 2 }, { name: PRIMARY.bob });
  await seedOrm.em.fork().nativeUpdate(Author, { id: 1 }, { name: 'Ann (primary)' });
  const em = bookstore.em.fork();
  em.create(Book, { id: 100, tenant: 1, title: LAGGED_BOOK, year: 2024, price: 9.99, author: 1 } as never);
  await em.flush();
  await bookstore.close(true);
  await seedOrm.close(true);
}

async function insertNotes(orm: MikroORM, from: number, to: number, authors?: readonly string[]): Promise<void> {
  const em = orm.em.fork();
  for (const [i, name] of (authors ?? []).entries()) em.create(Author, { id: i + 1, name });
  for (let id = from; id <= to; id++)
    em.create(Note, { id, title: `note ${id}`, author: em.getReference(Author, ((id - 1) % 5) + 1) });
  await em.flush();
}

/** The ORM under test: the primary, and both standbys as read replicas (unless `options` says otherwise). */
async function ormOn(cluster: ReplicaCluster, options: Record<string, unknown> = {}): Promise<MikroORM> {
  const { MikroORM } = await import('@mikro-orm/postgresql');
  return (await MikroORM.init({
    entities: [AuthorSchema, NoteSchema],
    clientUrl: cluster.primary.url(DATABASE),
    replicas: cluster.standbys.map((standby) => ({ clientUrl: standby.url(DATABASE) })),
    pool: { min: 0, max: 4 },
    debug: false,
    ...options,
  } as never)) as unknown as MikroORM;
}

function engineOn(orm: MikroORM) {
  return createEngine(orm, { policy: notePolicy, allowCount: true, allowEstimatedCount: true, maxLimit: 100 });
}

function notes(orm: MikroORM) {
  return (orm.em.fork() as SqlEntityManager).createQueryBuilder(Note, 'n');
}

/** A value no other statement carries: the servers whose logs hold it ran the request. */
function marker(): string {
  return `marker-${randomBytes(6).toString('hex')}`;
}

/** The names of the servers whose logs show the marker among a statement's bound values. */
function serversThatSaw(cluster: ReplicaCluster, mark: string): string[] {
  return [cluster.primary, ...cluster.standbys]
    .filter((server) => cluster.statements(server).some((st) => st.parameters.includes(mark)))
    .map((server) => server.name);
}

/** Which standby a count identifies (each holds a different number of notes), or `primary`. */
function serverOf(count: number | undefined): string {
  if (count === STANDBY1.notes) return 'standby1';
  if (count === STANDBY2.notes) return 'standby2';
  if (count === PRIMARY.notes) return 'primary';
  return `no server holds ${count} notes`;
}

const ids = (items: readonly Record<string, unknown>[]) => items.map((item) => item.id as number);
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

s('the cluster starts in a few seconds, with both standbys streaming and in recovery', async ({ cluster }) => {
  assert.ok(cluster.startedIn < 20_000, `started in ${Math.round(cluster.startedIn)} ms`);
  for (const standby of cluster.standbys) {
    const [row] = await cluster.sql<{ recovery: boolean }>(standby, 'select pg_is_in_recovery() as recovery');
    assert.is(row?.recovery, true);
  }
  const [primary] = await cluster.sql<{ recovery: boolean }>(cluster.primary, 'select pg_is_in_recovery() as recovery');
  assert.is(primary?.recovery, false);
});

s('list() and its count read one standby, never the primary', async ({ cluster, orm }) => {
  const engine = engineOn(orm);
  const seen = new Set<string>();
  for (let i = 0; i < 16; i++) {
    const mark = marker();
    const page = await engine.from(notes(orm)).list({ count: 'true', limit: '100', filter: `title ne '${mark}'` });
    const server = serverOf(page.page.count);
    seen.add(server);
    // The items and the count come from the same standby: its rows, all of them.
    assert.equal(ids(page.items), upTo(page.page.count ?? -1), server);
    assert.equal(serversThatSaw(cluster, mark), [server]);
  }
  assert.equal([...seen].sort(), ['standby1', 'standby2']);
});

s('count=estimated plans on the standby that serves the page', async ({ cluster, orm }) => {
  const engine = engineOn(orm);
  for (let i = 0; i < 4; i++) {
    const mark = marker();
    const page = await engine.from(notes(orm)).list({ count: 'estimated', filter: `title ne '${mark}'` });
    const seenBy = serversThatSaw(cluster, mark);
    assert.is(seenBy.length, 1, seenBy.join());
    assert.ok(seenBy[0]?.startsWith('standby'), seenBy[0]);
    const explained = cluster
      .statements(cluster.standbys[seenBy[0] === 'standby1' ? 0 : 1]!)
      .filter((st) => st.parameters.includes(mark));
    assert.ok(
      explained.some((st) => /^explain \(format json\) select/.test(st.text)),
      explained.map((st) => st.text).join('\n'),
    );
    assert.ok((page.page.estimatedCount ?? 0) >= 1);
  }
});

s('a cursor walk reads every page from one standby, with its count', async ({ orm }) => {
  const engine = engineOn(orm);
  const seen = new Set<string>();
  for (let walk = 0; walk < 8; walk++) {
    let count: number | undefined;
    const walked: number[] = [];
    for await (const page of engine.from(notes(orm)).pages({ sort: 'id', count: 'true' }, {}, { pageSize: 4 })) {
      count ??= page.page.count;
      walked.push(...ids(page.items));
    }
    // Were pages read from both standbys, the walk would hold rows 31–33 with a count of 30, or miss them with 33.
    assert.equal(walked, upTo(count ?? -1));
    seen.add(serverOf(count));
  }
  assert.ok(
    [...seen].every((server) => server.startsWith('standby')),
    [...seen].join(),
  );
});

s('cursors followed across requests never reach rows only the primary holds', async ({ orm }) => {
  const engine = engineOn(orm);
  let cursor: string | undefined;
  const walked: number[] = [];
  do {
    const page = await engine.from(notes(orm)).list({ sort: 'id', limit: '7', ...(cursor ? { cursor } : {}) });
    walked.push(...ids(page.items));
    cursor = page.page.nextCursor;
  } while (cursor);
  // Each request may read another standby: no row repeats, and none beyond what a standby holds.
  assert.equal(
    walked,
    [...new Set(walked)].sort((a, b) => a - b),
  );
  assert.ok(Math.max(...walked) <= STANDBY2.notes, String(Math.max(...walked)));
});

s('GraphQL (listql/graphql over graphql-http) reads a standby', async ({ cluster, orm }) => {
  const endpoint = { field: 'notes', type: 'Note', engine: engineOn(orm), scope: () => ({ base: notes(orm) }) };
  const served = await serveSchema(graphqlSchema({ endpoints: [endpoint] }));
  try {
    for (let i = 0; i < 4; i++) {
      const mark = marker();
      const answer = await postQuery(
        served.url,
        `{ notes(first: 50, filter: "title ne '${mark}'") { totalCount edges { node { id } } } }`,
      );
      assert.is(answer.errors, undefined, JSON.stringify(answer.errors));
      const { totalCount, edges } = answer.data.notes;
      const server = serverOf(totalCount);
      assert.ok(server.startsWith('standby'), server);
      assert.equal(
        edges.map((e: { node: { id: number } }) => e.node.id),
        upTo(totalCount),
      );
      assert.equal(serversThatSaw(cluster, mark), [server]);
    }
  } finally {
    await served.close();
  }
});

s('the export script reads the standbys named by DATABASE_REPLICA_URLS', async ({ cluster }) => {
  const primaryOnly = await runExport({ DATABASE_URL: cluster.primary.url(BOOKSTORE) });
  assert.is(primaryOnly.code, 0, primaryOnly.stderr);
  assert.ok(titles(primaryOnly.stdout).includes(LAGGED_BOOK));

  const before = cluster.standbys.map((standby) => cluster.logMark(standby));
  const replicas = await runExport({
    DATABASE_URL: cluster.primary.url(BOOKSTORE),
    DATABASE_REPLICA_URLS: cluster.standbys.map((standby) => standby.url(BOOKSTORE)).join(','),
  });
  assert.is(replicas.code, 0, replicas.stderr);
  assert.not.ok(titles(replicas.stdout).includes(LAGGED_BOOK));
  assert.is(titles(replicas.stdout).length, titles(primaryOnly.stdout).length - 1);
  // The walk's pages were read on a standby.
  const walked = cluster.standbys.flatMap((standby, i) =>
    cluster.statements(standby, before[i]).filter((st) => st.database === BOOKSTORE && /from "book"/.test(st.text)),
  );
  assert.ok(walked.length > 0, 'no standby received the export');
});

s('a transaction reads the primary', async ({ cluster, orm }) => {
  const engine = engineOn(orm);
  const mark = marker();
  const page = await (orm.em.fork() as SqlEntityManager).transactional((em) =>
    engine.from(em.createQueryBuilder(Note, 'n')).list({ count: 'true', limit: '100', filter: `title ne '${mark}'` }),
  );
  assert.is(page.page.count, PRIMARY.notes);
  assert.equal(ids(page.items), upTo(PRIMARY.notes));
  assert.equal(serversThatSaw(cluster, mark), ['primary']);
});

s('preferReadReplicas: false reads the primary', async ({ cluster }) => {
  const orm = await ormOn(cluster, { preferReadReplicas: false });
  try {
    const page = await engineOn(orm).from(notes(orm)).list({ count: 'true', limit: '0' });
    assert.is(page.page.count, PRIMARY.notes);
  } finally {
    await orm.close(true);
  }
});

s('read your writes: readPrimary reads the primary; without it the write is not seen yet', async ({ cluster, orm }) => {
  const engine = engineOn(orm);
  const em = orm.em.fork();
  em.create(Note, { id: 36, title: 'my own note', author: em.getReference(Author, 1) });
  await em.flush();
  const filter = "title eq 'my own note'";
  const mine = await engine.from(notes(orm), { readPrimary: true }).list({ filter, count: 'true' });
  assert.equal(ids(mine.items), [36]);
  assert.is(mine.page.count, 1);
  for (let i = 0; i < 4; i++) {
    const replica = await engine.from(notes(orm)).list({ filter, count: 'true' });
    assert.equal(ids(replica.items), []);
    assert.is(replica.page.count, 0);
  }
  // A walk and MikroORM's own connection type do the same.
  const walked: number[] = [];
  for await (const item of engine.from(notes(orm), { readPrimary: true }).items({ filter })) walked.push(item.id);
  assert.equal(walked, [36]);
  const write = (orm.em.fork() as SqlEntityManager).createQueryBuilder(Note, 'n', 'write');
  assert.equal(ids((await engine.from(write).list({ filter })).items), [36]);
  const mark = marker();
  await engine.from(notes(orm), { readPrimary: true }).list({ filter: `title ne '${mark}'`, count: 'true' });
  assert.equal(serversThatSaw(cluster, mark), ['primary']);
});

s('nested levels read the standby that serves the page', async ({ orm }) => {
  const engine = engineOn(orm);
  for (let i = 0; i < 8; i++) {
    const page = await engine.from(notes(orm)).list({ fields: 'id,author(name)', count: 'true', limit: '100' });
    const server = serverOf(page.page.count);
    const names = new Set(page.items.filter((item) => item.id % 5 === 2).map((item) => (item.author as any)?.name));
    // Author 2's name as the standby that served the page holds it: the nested level read the same standby.
    assert.equal([...names], [server === 'standby1' ? STANDBY1.bob : STANDBY2.bob], server);
  }
  const primary = await engine
    .from(notes(orm), { readPrimary: true })
    .list({ fields: 'id,author(name)', filter: 'id eq 2' });
  assert.equal(
    primary.items.map((item) => [item.id, (item.author as { name?: unknown } | null)?.name]),
    [[2, PRIMARY.bob]],
  );
});

s('once replay resumes, the standbys catch up and show every row', async ({ cluster, orm }) => {
  for (const standby of cluster.standbys) await cluster.resumeReplay(standby);
  await cluster.caughtUp();
  const engine = engineOn(orm);
  for (let i = 0; i < 4; i++) {
    const page = await engine.from(notes(orm)).list({ count: 'true', limit: '0' });
    assert.is(page.page.count, PRIMARY.notes + 1);
  }
});

s('no standby ever received a write from listql', async ({ cluster }) => {
  const read = /^(select|explain \(format json\) select|begin|rollback|set local |set |reset |show )/i;
  const write = /\b(insert|update|delete|merge|create|alter|drop|truncate|grant|copy|lock|nextval|setval)\b/i;
  let statements = 0;
  for (const standby of cluster.standbys)
    for (const st of cluster.statements(standby)) {
      if (st.database !== DATABASE && st.database !== BOOKSTORE) continue;
      for (const part of st.text
        .split(';')
        .map((p) => p.trim())
        .filter(Boolean)) {
        statements++;
        assert.ok(read.test(part) && !write.test(part), `${standby.name} received: ${part}`);
      }
    }
  // Every test above read the standbys: the check is not vacuous.
  assert.ok(statements > 50, `only ${statements} statements`);
  // The writes of the tests themselves went to the primary.
  assert.ok(cluster.statements(cluster.primary).some((st) => /^insert into "note"/.test(st.text)));
});

s.run();

function titles(ndjson: string): string[] {
  return ndjson
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { title: string }).title);
}

function runExport(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { DATABASE_URL: _u, DATABASE_REPLICA_URLS: _r, BOOKSTORE_SQLITE: _f, NO_COLOR: _c, ...inherited } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['examples/export/main.ts', '--page-size', '3'], {
      cwd: ROOT,
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
