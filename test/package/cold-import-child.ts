/**
 * The child process of cold-import.test.ts: `node cold-import-child.ts <URL of the built dist/index.js>`. It loads
 * MikroORM first, as an app has by the time it creates an engine, then imports the built listql and reports what
 * that import started, then runs what the deferred code serves: an invalid filter (ohm-js) and signed and sealed
 * cursors over an in-memory SQLite database (node:crypto). Prints one JSON line.
 */
import { EntitySchema } from '@mikro-orm/core';
import '@mikro-orm/sql';

/** Node's list of the modules it has loaded: not typed, but present in every Node listql supports. */
const loaded = (): string[] => (process as unknown as { moduleLoadList: string[] }).moduleLoadList;

/** ohm-js makes Unicode property regexes (`\p{…}`) as it starts: count them, and so see whether it started. */
let unicodeRegexes = 0;
globalThis.RegExp = new Proxy(RegExp, {
  construct(target, args: [string | RegExp, string?], newTarget) {
    if (String(args[0]).includes('\\p{')) unicodeRegexes++;
    return Reflect.construct(target, args, newTarget) as RegExp;
  },
});

const before = new Set(loaded());
const listql = (await import(process.argv[2]!)) as typeof import('listql');
const startedByImport = loaded().filter(
  (name) => !before.has(name) && /^NativeModule (crypto|worker_threads)$/.test(name),
);
const regexesAtImport = unicodeRegexes;
listql.parseFilter("name eq 'x' and price gt 10");
const regexesAfterValid = unicodeRegexes;
let invalid: unknown;
try {
  listql.parseFilter('price gt');
} catch (error) {
  invalid = listql.isListError(error) ? error.toJSON() : String(error);
}

class Gadget {
  id!: number;
  price!: number;
}
const GadgetSchema = new EntitySchema<Gadget>({
  class: Gadget,
  properties: { id: { type: 'integer', primary: true, autoincrement: false }, price: { type: 'integer' } },
});
const { MikroORM } = await import('@mikro-orm/sqlite');
const orm = await MikroORM.init({ entities: [GadgetSchema], dbName: ':memory:' });
await orm.schema.create();
const em = orm.em.fork();
for (const [id, price] of [
  [1, 25],
  [2, 40],
  [3, 10],
] as const)
  em.create(Gadget, { id, price });
await em.flush();

/** Walk every page of one sort, following nextCursor: the ids in the order the pages gave them. */
async function walk(mode: 'signed' | 'sealed'): Promise<number[]> {
  const policy = listql.schema(Gadget).expose('id', listql.sortable()).expose('price', listql.sortable());
  const engine = listql.createEngine(orm, { policy, cursorSecret: 'x'.repeat(32), cursorMode: mode });
  const ids: number[] = [];
  let cursor: string | undefined;
  do {
    const qb = orm.em.fork().createQueryBuilder(Gadget, 'g');
    const page = await engine.from(qb).list({ sort: '-price', limit: '1', ...(cursor ? { cursor } : {}) });
    ids.push(...page.items.map((item) => (item as Gadget).id));
    cursor = page.page.nextCursor;
  } while (cursor !== undefined);
  return ids;
}
const signed = await walk('signed');
const sealed = await walk('sealed');
await orm.close();

console.log(
  JSON.stringify({
    startedByImport,
    regexesAtImport,
    regexesAfterValid,
    regexesAfterInvalid: unicodeRegexes,
    invalid,
    signed,
    sealed,
  }),
);
