/**
 * Row-level security on PostgreSQL through listql: a table with a real policy on `current_setting('app.tenant')`,
 * read as a role that is not a superuser (superusers bypass RLS). `ctx.pgSettings` reaches every statement of
 * list(), count=true, a cursor walk, a relationship sub-query and GraphQL; settings the application makes in its
 * own transaction hold for listql's statements there; nothing leaks into the pool; values are bound parameters.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Collection, type EntityManager, EntitySchema } from '@mikro-orm/core';
import { MikroORM as PostgresORM } from '@mikro-orm/postgresql';
import { raw } from '@mikro-orm/sql';
import { createHandler } from 'graphql-http/lib/use/http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { graphqlSchema } from '../../src/graphql/index.ts';
import { createEngine, execute, isListError } from '../../src/index.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { openDatabase, postgresAdmin, type TestDatabase } from '../helpers/db.ts';

class Doc {
  id!: number;
  tenant!: number;
  title!: string;
  notes?: Collection<Note>;
}
class Note {
  id!: number;
  tenant!: number;
  body!: string;
  doc!: Doc;
}
const DocSchema = new EntitySchema<Doc>({
  class: Doc,
  tableName: 'rls_doc',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    tenant: { type: 'integer', hidden: true },
    title: { type: 'string' },
    notes: { kind: '1:m', entity: () => Note, mappedBy: 'doc' } as never,
  },
});
const NoteSchema = new EntitySchema<Note>({
  class: Note,
  tableName: 'rls_note',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    tenant: { type: 'integer', hidden: true },
    body: { type: 'string' },
    doc: { kind: 'm:1', entity: () => Doc },
  },
});
const entities = [DocSchema, NoteSchema];

const policy = schema(Doc)
  .expose('id', filterable(), sortable())
  .expose('title', filterable(), sortable())
  .relation('notes', schema(Note).expose('body', filterable()));

/** Docs 1–7 belong to tenant 1, 8–12 to tenant 2; doc 1 has a note of each tenant. */
const TENANT = { 1: [1, 2, 3, 4, 5, 6, 7], 2: [8, 9, 10, 11, 12] } as const;

async function seed(em: EntityManager): Promise<void> {
  for (const [tenant, ids] of Object.entries(TENANT))
    for (const id of ids) em.create(Doc, { id, tenant: Number(tenant), title: id === 3 ? "it's; --" : `doc ${id}` });
  em.create(Note, { id: 1, tenant: 1, body: 'hello', doc: 1 });
  em.create(Note, { id: 2, tenant: 2, body: 'secret', doc: 1 });
  await em.flush();
}

/** RLS as applications write it: an unset variable (or the empty placeholder a pooled session keeps) sees nothing. */
const TENANT_CHECK = "tenant = nullif(current_setting('app.tenant', true), '')::int";

interface Ctx {
  db: TestDatabase;
  role: string;
  /** An ORM connected as the role, which row-level security applies to. */
  orm: PostgresORM;
}

const s = suite<Ctx>('row-level security [postgresql]', {} as Ctx);

s.before(async (ctx) => {
  ctx.db = await openDatabase('postgresql', entities);
  await seed(ctx.db.orm.em.fork());
  // Roles are cluster-wide: a unique name per run, dropped in after().
  ctx.role = `listql_rls_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = ctx.db.orm.em.getConnection();
  await admin.execute(`create role ${ctx.role} login`);
  await admin.execute(`grant usage on schema public to ${ctx.role}`);
  await admin.execute(`grant select on rls_doc, rls_note to ${ctx.role}`);
  for (const table of ['rls_doc', 'rls_note']) {
    await admin.execute(`alter table ${table} enable row level security`);
    await admin.execute(`alter table ${table} force row level security`);
    await admin.execute(`create policy tenant_rows on ${table} using (${TENANT_CHECK})`);
  }
  const url = new URL(ctx.db.url!);
  url.username = ctx.role;
  ctx.orm = await PostgresORM.init({ entities, clientUrl: url.toString(), debug: false, pool: { max: 3 } });
});

s.after(async (ctx) => {
  await ctx.orm?.close(true);
  await ctx.db?.dispose();
  if (ctx.role) await postgresAdmin((c) => c.query(`drop role if exists ${ctx.role}`));
});

const tenantOf = (n: 1 | 2) => ({ pgSettings: { 'app.tenant': String(n) } });
const base = (em: EntityManager) => (em.fork() as any).createQueryBuilder(Doc, 'd');
/** The base scope in the transaction of `tem` (a fork would leave the transaction). */
const inTrx = (tem: EntityManager) => (tem as any).createQueryBuilder(Doc, 'd');
const ids = (items: readonly { id?: unknown }[]) => items.map((i) => Number(i.id));

s('the policy holds for the role: without settings it sees no row', async ({ orm }) => {
  const engine = createEngine(orm, { policy });
  assert.equal((await engine.from(base(orm.em)).list({})).items, []);
});

for (const statementTimeout of [5000, false] as const) {
  s(`list(): each tenant sees only its rows (statementTimeout ${statementTimeout})`, async ({ orm }) => {
    const engine = createEngine(orm, { policy, maxLimit: 20, statementTimeout });
    for (const n of [1, 2] as const) {
      const page = await engine.from(base(orm.em)).list({ limit: '20' }, tenantOf(n));
      assert.equal(ids(page.items), [...TENANT[n]]);
    }
  });
}

s('count=true counts only the tenant’s rows', async ({ orm }) => {
  const engine = createEngine(orm, { policy, allowCount: true });
  for (const n of [1, 2] as const) {
    const page = await engine.from(base(orm.em)).list({ count: 'true', limit: '2' }, tenantOf(n));
    assert.is(page.page.count, TENANT[n].length);
    assert.equal(ids(page.items), TENANT[n].slice(0, 2));
  }
  // The estimate's EXPLAIN runs under the settings too (a planner figure: only that it runs is asserted).
  const estimating = createEngine(orm, { policy, allowEstimatedCount: true });
  const estimated = await estimating.from(base(orm.em)).list({ count: 'estimated' }, tenantOf(1));
  assert.is(typeof estimated.page.estimatedCount, 'number');
  assert.equal(ids(estimated.items), [...TENANT[1]]);
});

s('a cursor walk (pages() and items()) sees only the tenant’s rows, on every page', async ({ orm }) => {
  const engine = createEngine(orm, { policy, maxLimit: 3 });
  for (const n of [1, 2] as const) {
    const pages: number[][] = [];
    for await (const page of engine.from(base(orm.em)).pages({ sort: '-id' }, tenantOf(n))) pages.push(ids(page.items));
    assert.equal(pages.flat(), [...TENANT[n]].reverse());
    assert.ok(pages.length >= 2, 'several pages');
    const items: number[] = [];
    for await (const item of engine.from(base(orm.em)).items({}, tenantOf(n), { pageSize: 2 }))
      items.push(Number(item.id));
    assert.equal(items, [...TENANT[n]]);
  }
});

s('a relationship sub-query is bound by the policy of its own table', async ({ orm, db }) => {
  const filter = "notes/any(n: n/body eq 'secret')";
  // The superuser bypasses RLS: the note of tenant 2 on doc 1 exists.
  const admin = createEngine(db.orm, { policy });
  assert.equal(ids((await admin.from(base(db.orm.em)).list({ filter })).items), [1]);
  const engine = createEngine(orm, { policy });
  assert.equal(ids((await engine.from(base(orm.em)).list({ filter }, tenantOf(1))).items), []);
  assert.equal(
    ids((await engine.from(base(orm.em)).list({ filter: "notes/any(n: n/body eq 'hello')" }, tenantOf(1))).items),
    [1],
  );
});

s('`role` switches a superuser connection to the role, as `set local role` does', async ({ db, role }) => {
  const engine = createEngine(db.orm, { policy, maxLimit: 20 });
  const page = await engine.from(base(db.orm.em)).list({ limit: '20' }, { pgSettings: { role, 'app.tenant': '2' } });
  assert.equal(ids(page.items), [...TENANT[2]]);
});

s('names and values travel as bound parameters, never in the SQL text', async ({ db }) => {
  const title = "it's; --";
  const qb = base(db.orm.em).where(raw(`d.title = current_setting('app.title')`));
  const { result, calls } = await captureDriver(() => execute<Doc>(qb, { pgSettings: { 'app.title': title } }), {
    guards: true,
  });
  assert.equal(ids(result), [3]);
  const set = calls.find((c) => c.sql.includes('set_config'));
  assert.equal(set, { sql: 'select set_config($1, $2, true)', values: ['app.title', title] });
  assert.not.ok(
    calls.some((c) => c.sql.includes(title)),
    'the value is in no SQL text',
  );
});

s('settings end with listql’s statement: nothing leaks into the pool', async ({ orm }) => {
  const engine = createEngine(orm, { policy, allowCount: true });
  for (let i = 0; i < 4; i++)
    await Promise.all([1, 2, 1].map((n) => engine.from(base(orm.em)).list({ count: 'true' }, tenantOf(n as 1 | 2))));
  const seen = await Promise.all(
    Array.from({ length: 6 }, () =>
      orm.em.fork().getConnection().execute<{ t: string | null }[]>("select current_setting('app.tenant', true) as t"),
    ),
  );
  for (const [row] of seen) assert.ok(row?.t == null || row.t === '', String(row?.t));
  assert.equal((await engine.from(base(orm.em)).list({})).items, []);
});

s('with ctx.pgSettings a slow statement stops at its statement timeout, alone or in a transaction', async ({ orm }) => {
  const limit = 200;
  const engine = createEngine(orm, {
    policy,
    statementTimeout: limit,
    search: (_ctx, qb, term) => (term === 'slow' ? qb.andWhere('(select true from pg_sleep(?))', [5]) : qb),
  });
  const started = performance.now();
  const alone = await engine
    .from(base(orm.em))
    .list({ search: 'slow' }, tenantOf(1))
    .catch((err: unknown) => err);
  const took = performance.now() - started;
  assert.ok(isListError(alone) && alone.code === 'query_timeout', String(alone));
  assert.ok(took < limit + 1000, `answered after ${Math.round(took)} ms`);
  const inTransaction = await orm.em
    .fork()
    .transactional((tem) => engine.from(inTrx(tem)).list({ search: 'slow' }, tenantOf(1)))
    .catch((err: unknown) => err);
  assert.ok(isListError(inTransaction) && inTransaction.code === 'query_timeout', String(inTransaction));
  // Nothing left sleeping or inside a transaction (the rollback after a stopped statement may still be on its way).
  let left = -1;
  for (let i = 0; i < 20 && left !== 0; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    const [row] = await orm.em
      .fork()
      .getConnection()
      .execute<{ n: string | number }[]>(
        `select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
         and ((state = 'active' and query like '%pg_sleep%') or state like 'idle in transaction%')`,
      );
    left = Number(row?.n ?? 0);
  }
  assert.is(left, 0);
  assert.equal(ids((await engine.from(base(orm.em)).list({}, tenantOf(2))).items), [...TENANT[2]]);
});

s("in the application's transaction, its own set_config holds for listql's statements", async ({ orm }) => {
  const engine = createEngine(orm, { policy, allowCount: true, maxLimit: 20 });
  await orm.em.fork().transactional(async (tem) => {
    await tem.execute("select set_config('app.tenant', ?, true)", ['2']);
    const page = await engine.from(inTrx(tem)).list({ count: 'true', limit: '20' });
    assert.equal(ids(page.items), [...TENANT[2]]);
    assert.is(page.page.count, TENANT[2].length);
    const walked: number[] = [];
    for await (const item of engine.from(inTrx(tem)).items({}, {}, { pageSize: 2 })) walked.push(Number(item.id));
    assert.equal(walked, [...TENANT[2]]);
  });
});

s("ctx.pgSettings in the application's transaction: applied, then its previous values put back", async ({ orm }) => {
  const engine = createEngine(orm, { policy, maxLimit: 20 });
  await orm.em.fork().transactional(async (tem) => {
    await tem.execute("select set_config('app.tenant', ?, true)", ['2']);
    const page = await engine.from(inTrx(tem)).list({ limit: '20' }, tenantOf(1));
    assert.equal(ids(page.items), [...TENANT[1]]);
    const [row] = await tem.execute<{ t: string }[]>("select current_setting('app.tenant') as t");
    assert.is(row?.t, '2');
    assert.equal(ids((await engine.from(inTrx(tem)).list({ limit: '20' })).items), [...TENANT[2]]);
  });
});

s('a bad pgSettings is invalid_schema, before any query', async ({ orm }) => {
  const engine = createEngine(orm, { policy });
  for (const pgSettings of [{ 'app.tenant': 1 }, 'app.tenant=1', { statement_timeout: '1' }, { '': 'x' }]) {
    const { result, calls } = await captureDriver(() =>
      engine
        .from(base(orm.em))
        .list({}, { pgSettings } as never)
        .catch((err: unknown) => err),
    );
    assert.ok(isListError(result) && result.code === 'invalid_schema', String(result));
    assert.equal(calls, []);
  }
});

s('GraphQL: each request sees only its tenant’s rows, in totalCount and along the cursor', async ({ orm }) => {
  const engine = createEngine(orm, { policy, allowCount: true, maxLimit: 3 });
  const handler = createHandler({
    schema: graphqlSchema<{ tenant: string }>({
      endpoints: [
        {
          field: 'docs',
          type: 'Doc',
          engine,
          scope: ({ tenant }) => ({ base: base(orm.em), ctx: { pgSettings: { 'app.tenant': tenant } } }),
        },
      ],
    }),
    context: (req) => ({ tenant: String(req.raw.headers['x-tenant']) }),
  });
  const server: Server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    for (const n of [1, 2] as const) {
      const seen: number[] = [];
      let after: string | null = null;
      do {
        const args: string = after === null ? 'first: 3' : `first: 3, after: ${JSON.stringify(after)}`;
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', 'x-tenant': String(n) },
          body: JSON.stringify({
            query: `{ docs(${args}) { totalCount nodes { id } pageInfo { endCursor hasNextPage } } }`,
          }),
        });
        const body = (await res.json()) as { data?: any; errors?: unknown };
        assert.is(body.errors, undefined, JSON.stringify(body.errors));
        const docs = body.data.docs;
        assert.is(docs.totalCount, TENANT[n].length);
        seen.push(...ids(docs.nodes));
        after = docs.pageInfo.hasNextPage ? docs.pageInfo.endCursor : null;
      } while (after !== null);
      assert.equal(seen, [...TENANT[n]]);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

s.run();
