/**
 * createEngine() validates its configuration (invalid_schema naming the setting) and returns a frozen engine;
 * from() refuses a base scope of another entity (an alias like lq1 is fine); describe() is detached,
 * deterministic, frozen, and names no table, column or property.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type EngineConfig } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { DEFAULT_LIMITS } from '../../src/limits.ts';
import { schema, sortable } from '../../src/policy/index.ts';
import { catalogEntities, Product } from '../fixtures/catalog.ts';
import { Cell, Entry, entryPolicy, seedWalk, walkEntities } from '../fixtures/walk.ts';
import { eachDialect } from '../helpers/db.ts';

interface ConfigRow {
  readonly name: string;
  readonly config: (valid: EngineConfig) => unknown;
  /** A fragment the message must contain. */
  readonly names: string;
}

const CONFIGS: readonly ConfigRow[] = [
  { name: 'no config', config: () => undefined, names: 'the config' },
  { name: 'no policy', config: () => ({}), names: 'policy' },
  { name: 'a policy that is not one', config: () => ({ policy: { entity: Entry } }), names: 'policy' },
  { name: 'defaultLimit 0', config: (v) => ({ ...v, defaultLimit: 0 }), names: 'defaultLimit' },
  { name: 'maxLimit 1.5', config: (v) => ({ ...v, maxLimit: 1.5 }), names: 'maxLimit' },
  { name: 'maxOffset -1', config: (v) => ({ ...v, maxOffset: -1 }), names: 'maxOffset' },
  { name: 'maxOffset as a string', config: (v) => ({ ...v, maxOffset: '10' }), names: 'maxOffset' },
  { name: 'allowCount "yes"', config: (v) => ({ ...v, allowCount: 'yes' }), names: 'allowCount' },
  { name: 'search not a function', config: (v) => ({ ...v, search: 'title' }), names: 'search' },
  { name: 'maxCursorBytes 0', config: (v) => ({ ...v, maxCursorBytes: 0 }), names: 'maxCursorBytes' },
  { name: 'a limit of 0', config: (v) => ({ ...v, limits: { maxNodes: 0 } }), names: 'limits.maxNodes' },
  { name: 'an unknown limit', config: (v) => ({ ...v, limits: { maxBogus: 1 } }), names: 'limits.maxBogus' },
  { name: 'an unknown setting', config: (v) => ({ ...v, maxlimit: 5 }), names: 'maxlimit' },
  { name: 'a budget of 0', config: (v) => ({ ...v, limits: { maxSubqueries: 0 } }), names: 'limits.maxSubqueries' },
  { name: 'statementTimeout 0', config: (v) => ({ ...v, statementTimeout: 0 }), names: 'statementTimeout' },
  { name: 'statementTimeout true', config: (v) => ({ ...v, statementTimeout: true }), names: 'statementTimeout' },
  {
    name: 'defaultLimit over maxLimit',
    config: (v) => ({ ...v, defaultLimit: 50, maxLimit: 10 }),
    names: 'defaultLimit (50)',
  },
  {
    name: 'defaultLimit over the default maxLimit',
    config: (v) => ({ ...v, defaultLimit: 101 }),
    names: 'maxLimit (100)',
  },
  {
    name: 'two different cursor bounds',
    config: (v) => ({ ...v, maxCursorBytes: 100, limits: { maxCursorBytes: 200 } }),
    names: 'maxCursorBytes',
  },
  { name: 'defaultSort not a string', config: (v) => ({ ...v, defaultSort: ['-score'] }), names: 'defaultSort' },
  {
    name: 'defaultSort empty',
    config: (v) => ({ ...v, defaultSort: '' }),
    names: "defaultSort '' is not a valid sort",
  },
  {
    name: 'defaultSort naming an unknown field',
    config: (v) => ({ ...v, defaultSort: '-scroe' }),
    names: "at byte 1: unknown field 'scroe'",
  },
  {
    name: 'defaultSort naming a hidden field',
    config: (v) => ({ ...v, defaultSort: 'secret' }),
    names: "unknown field 'secret'",
  },
  {
    name: 'defaultSort through a to-many relation',
    config: (v) => ({ ...v, defaultSort: 'tags/name' }),
    names: "cannot sort through to-many relation 'tags'",
  },
  {
    name: 'defaultSort ending on a relation',
    config: (v) => ({ ...v, defaultSort: 'group' }),
    names: "path ends on relation 'group'",
  },
  { name: 'defaultSort with a syntax error', config: (v) => ({ ...v, defaultSort: 'score,' }), names: 'at byte 6' },
  {
    name: 'defaultSort repeating a key',
    config: (v) => ({ ...v, defaultSort: 'id,-id' }),
    names: "'id' appears twice",
  },
  {
    name: 'defaultSort over maxSortTerms',
    config: (v) => ({ ...v, defaultSort: 'id,score', limits: { maxSortTerms: 1 } }),
    names: 'more than 1 keys',
  },
  {
    name: 'a policy for an entity this ORM does not know',
    config: () => ({ policy: schema(Product).expose('id', sortable()) }),
    names: 'Product',
  },
];

const FORBIDDEN = [
  'walk_entry',
  'walk_team',
  'walk_tag',
  'entry_id',
  'score_value',
  'label_text',
  'at_moment',
  'big_number',
  'team_name',
  'tag_name',
  'tenant',
  'secret',
  'deleted',
  'label',
  'team',
  'Entry',
  'Team',
];

const EXPECTED_DESCRIPTION = {
  fields: [
    ['id', 'integer', false],
    ['score', 'integer', true],
    ['title', 'string', false],
    ['big', 'bigint', false],
    ['amount', 'decimal', true],
    ['ratio', 'float', true],
    ['flag', 'boolean', true],
    ['day', 'date', true],
  ].map(([name, kind, nullable]) => ({
    name,
    kind,
    nullable,
    filterable: true,
    operators: operatorsOf(kind as string, nullable as boolean),
    sortable: true,
    selectable: true,
  })),
};

function operatorsOf(kind: string, nullable: boolean): string[] {
  const ordering = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'];
  const base =
    kind === 'boolean'
      ? ['eq', 'ne']
      : kind === 'string'
        ? [...ordering, 'contains', 'startswith', 'endswith', 'in', 'nin']
        : [...ordering, 'in', 'nin'];
  return nullable ? [...base, 'null'] : base;
}

eachDialect('engine config', { entities: walkEntities, seed: seedWalk }, (test, dialect) => {
  const valid: EngineConfig = { policy: entryPolicy };

  for (const row of CONFIGS) {
    test(`invalid_schema: ${row.name}`, ({ em }) => {
      try {
        createEngine(em, row.config(valid) as EngineConfig);
        assert.unreachable('createEngine accepted it');
      } catch (err) {
        assert.ok(isListError(err), String(err));
        assert.is(err.code, 'invalid_schema');
        assert.ok(err.message.includes(row.names), err.message);
      }
    });
  }

  test('a valid engine is frozen, and so is its scoped engine', ({ em }) => {
    const engine = createEngine(em, { policy: entryPolicy, defaultLimit: 5, maxLimit: 5 });
    assert.ok(Object.isFrozen(engine));
    assert.ok(Object.isFrozen(engine.from((em as any).createQueryBuilder(Entry, 'e'))));
  });

  test('from() refuses a base scope of another entity, and takes one aliased like a generated alias', ({ em }) => {
    const engine = createEngine(em, valid);
    assert.ok(engine.from((em as any).createQueryBuilder(Entry, 'lq1')));
    for (const qb of [(em as any).createQueryBuilder(Cell, 'c'), {}]) {
      try {
        engine.from(qb);
        assert.unreachable('from() accepted it');
      } catch (err) {
        assert.ok(isListError(err), String(err));
        assert.is(err.code, 'invalid_schema');
      }
    }
  });

  test('describe(): public fields, relations, capabilities and limits', ({ em }) => {
    const search = (_c: unknown, qb: any) => qb;
    const engine = createEngine(em, { policy: entryPolicy, allowCount: true, search, maxLimit: 50, maxOffset: 500 });
    const d = engine.describe();
    const at = {
      name: 'at',
      kind: 'datetime',
      nullable: false,
      filterable: true,
      operators: ['gte', 'lte'],
      sortable: true,
      selectable: true,
    };
    assert.equal(d.fields, [...EXPECTED_DESCRIPTION.fields, at]);
    assert.equal(d.relations, [
      {
        name: 'group',
        cardinality: 'one',
        itemKey: 'team',
        schema: {
          fields: [
            {
              name: 'name',
              kind: 'string',
              nullable: true,
              filterable: true,
              operators: operatorsOf('string', true),
              sortable: true,
              selectable: true,
            },
          ],
          relations: [],
        },
      },
      {
        name: 'tags',
        cardinality: 'many',
        schema: {
          fields: [
            {
              name: 'name',
              kind: 'string',
              nullable: false,
              filterable: true,
              operators: ['eq', 'in'],
              sortable: false,
              selectable: true,
            },
          ],
          relations: [],
        },
      },
    ]);
    assert.equal(d.capabilities, {
      count: true,
      estimatedCount: false,
      search: true,
      cursor: true,
      backward: true,
      offset: true,
    });
    assert.equal(d.limits, {
      defaultLimit: 20,
      maxLimit: 50,
      maxOffset: 500,
      ...DEFAULT_LIMITS,
      // SQLite cannot stop a statement: no timeout is described there.
      ...(dialect === 'sqlite' ? {} : { statementTimeout: 5000 }),
      requestTimeout: 10000,
    });
    const plain = createEngine(em, { policy: entryPolicy }).describe();
    assert.equal(plain.capabilities, {
      count: false,
      estimatedCount: false,
      search: false,
      cursor: true,
      backward: true,
      offset: true,
    });
  });

  test('describe() is frozen, detached, deterministic and names no table, column or property', ({ em }) => {
    const a = createEngine(em, { policy: entryPolicy }).describe();
    const b = createEngine(em, { policy: entryPolicy }).describe();
    assert.equal(a, b);
    assert.is(JSON.stringify(a), JSON.stringify(b));
    assert.equal(JSON.parse(JSON.stringify(a)), a, 'plain data only');
    const frozen = (v: unknown): boolean =>
      typeof v !== 'object' || v === null || (Object.isFrozen(v) && Object.values(v).every(frozen));
    assert.ok(frozen(a));
    // The item description names exactly the keys every item already carries (`deletedAt` and `team` are
    // serialized; `label` only as `title`; `tenant` and `secret` are hidden), and no table or column.
    // A relation's itemKey is the key items carry its key under (`team`), so it is checked against those keys.
    const { item, relations, ...others } = a;
    const rest = { ...others, relations: relations.map(({ itemKey: _, ...r }) => r) };
    const text = JSON.stringify(rest);
    for (const r of relations)
      if (r.itemKey !== undefined)
        assert.ok(
          item.properties.some((p) => p.name === r.itemKey),
          r.itemKey,
        );
    for (const name of FORBIDDEN) assert.not.ok(text.includes(name), `describe() mentions ${name}`);
    const keys = ['id', 'score', 'title', 'big', 'amount', 'ratio', 'flag', 'day', 'at', 'deletedAt', 'team'];
    assert.equal(
      item.properties.map((p) => p.name),
      keys,
    );
    const itemText = JSON.stringify(item.properties.map(({ name: _, ...shape }) => shape));
    for (const name of FORBIDDEN) assert.not.ok(itemText.includes(name), `describe().item mentions ${name}`);
  });
});

eachDialect('engine config: other entities', { entities: catalogEntities }, (test) => {
  test('a policy bound to this ORM works with an EntityManager or the MikroORM instance', ({ db, em }) => {
    const policy = schema(Product).expose('id', sortable());
    for (const orm of [db.orm, em as EntityManager]) assert.ok(createEngine(orm, { policy }).describe());
  });
});
