/**
 * The item type matches what the engine serves: list() items of Entry carry exactly the keys of ListItem<Entry>
 * (public names, hidden properties and collections left out, the to-one relation as its key), with values of the
 * JavaScript types the item type states, on SQLite and PostgreSQL. The compile-time side is `satisfies` below.
 */
import * as assert from 'uvu/assert';
import { createEngine, type ListItem } from '../../src/engine/index.ts';
import { Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { eachDialect } from '../helpers/db.ts';

type EntryItem = ListItem<Entry>;

const nullable = (check: (v: unknown) => boolean) => (v: unknown) => v === null || v === undefined || check(v);
const isString = (v: unknown) => typeof v === 'string';
const isNumber = (v: unknown) => typeof v === 'number';

/** One row per key of the item type (`satisfies` fails to compile when the type gains or loses a key). */
const VALUE_CHECKS = {
  id: isNumber,
  score: nullable(isNumber),
  title: isString,
  big: isString,
  amount: nullable(isString),
  ratio: nullable(isNumber),
  flag: nullable((v) => typeof v === 'boolean'),
  day: nullable(isString),
  at: (v) => v instanceof Date,
  deletedAt: nullable((v) => v instanceof Date),
  team: nullable(isNumber),
} satisfies { readonly [K in keyof EntryItem]-?: (value: unknown) => boolean };

eachDialect('item type', { entities: walkEntities, seed: seedWalk }, (test) => {
  test('list() items have exactly the keys of ListItem<Entry>, with the value types it states', async ({ em }) => {
    const engine = createEngine(em, { policy: entryPolicy, maxLimit: 100 });
    const page = await engine.from((em as any).createQueryBuilder(Entry, 'e')).list({ limit: '100' });
    const items: EntryItem[] = page.items;
    assert.ok(items.length > 0);
    const seen = new Set(items.flatMap((item) => Object.keys(item)));
    assert.equal([...seen].sort(), Object.keys(VALUE_CHECKS).sort());
    for (const item of items)
      for (const [key, check] of Object.entries(VALUE_CHECKS)) {
        const value = (item as Record<string, unknown>)[key];
        assert.ok(check(value), `${key}: ${String(value)} (${typeof value})`);
      }
  });
});
