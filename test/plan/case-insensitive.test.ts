/**
 * The case-insensitive operators (ieq, ine, icontains, istartswith, iendswith) on real rows: ASCII letters fold and
 * nothing else does, on every dialect; LIKE/GLOB wildcards in values are literal; NULL never matches; they are
 * opt-in per string field; the filter cache re-escapes new values; describe(), toOpenAPI and indexes() show them.
 */
import { type EntityManager, EntitySchema } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { toOpenAPI } from '../../src/index.ts';
import { cachedShapeCount } from '../../src/plan/filter-cache.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { explainPlan } from '../helpers/explain.ts';

class Word {
  id!: number;
  text!: string;
  note?: string | null;
  size!: number;
  /** Serialized as `ine`, a reserved word since the case-insensitive operators: it cannot be exposed. */
  code?: string | null;
}

const WordSchema = new EntitySchema<Word>({
  class: Word,
  tableName: 'ci_word',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    text: { type: 'string' },
    note: { type: 'text', nullable: true },
    size: { type: 'integer' },
    code: { type: 'string', nullable: true, serializedName: 'ine' },
  },
});

const policy = schema(WordSchema)
  .expose('id', filterable(), sortable())
  .expose('text', filterable('eq', 'ieq', 'ine', 'icontains', 'istartswith', 'iendswith'), sortable())
  .expose('note', filterable('ieq', 'ine', 'icontains', 'null'))
  .expose('size', filterable());

const WORDS: readonly [number, string, string | null][] = [
  [1, 'Alpha', 'Hello World'],
  [2, 'alpha', null],
  [3, 'ALPHA beta', '100% sure'],
  [4, 'Ärger', 'a_b'],
  [5, 'ärger', 'back\\slash'],
  [6, 'Straße', 'STRASSE'],
  [7, 'İstanbul', 'istanbul'],
  [8, 'under_score', '50%off'],
  [10, 'Éclair', 'éclair'],
  [11, 'a*b?[c]', null],
];

function words(em: EntityManager) {
  return (em as SqlEntityManager).createQueryBuilder(Word, 'w');
}

async function seed(em: EntityManager): Promise<void> {
  for (const [id, text, note] of WORDS) em.create(Word, { id, text, note, size: id });
  await em.flush();
}

/** A filter, and the ids it must give (sorted by id). */
const ROWS: readonly [filter: string, ids: readonly number[]][] = [
  // ASCII letters fold on both sides
  ["text ieq 'ALPHA'", [1, 2]],
  ["text ieq 'alpha'", [1, 2]],
  // eq follows the column's collation: exact on SQLite and PostgreSQL (C), case-blind on MariaDB (see MARIADB_EQ)
  ["text eq 'alpha'", [2]],
  ["text ine 'aLpHa'", [3, 4, 5, 6, 7, 8, 10, 11]],
  ["text icontains 'PHA'", [1, 2, 3]],
  ["text istartswith 'alpha '", [3]],
  ["text iendswith 'BETA'", [3]],
  ["text icontains ''", [1, 2, 3, 4, 5, 6, 7, 8, 10, 11]],
  // Nothing beyond ASCII folds: Ä/ä, É/é, ß/SS and İ/i stay different, whatever the database's locale
  ["text ieq 'ärger'", [5]],
  ["text ieq 'ÄRGER'", [4]],
  ["text icontains 'RGER'", [4, 5]],
  ["text ieq 'STRASSE'", []],
  ["text ieq 'STRAßE'", [6]],
  ["text istartswith 'i'", []],
  ["text istartswith 'İ'", [7]],
  ["text ieq 'éclair'", []],
  ["text ieq 'ÉCLAIR'", [10]],
  ["note ieq 'ÉCLAIR'", []],
  ["note ieq 'Éclair'", []],
  ["note ieq 'éCLAIR'", [10]],
  // LIKE and GLOB wildcards and the escape character are literal
  ["text icontains '_'", [8]],
  ["text icontains 'R_S'", [8]],
  ["text istartswith 'UNDER%'", []],
  ["note icontains '%'", [3, 8]],
  ["note icontains '0%O'", [8]],
  ["note icontains 'A_B'", [4]],
  ["note icontains '_'", [4]],
  ["note icontains '\\'", [5]],
  ["note icontains 'K\\S'", [5]],
  ["text icontains '*'", [11]],
  ["text iendswith '[C]'", [11]],
  ["text icontains 'B?'", [11]],
  ["text icontains '?['", [11]],
  ["text ieq 'A*B?[C]'", [11]],
  ["text istartswith 'a*'", [11]],
  ["text istartswith 'a?'", []],
  // NULL never matches, negated or not
  ["note ieq 'strasse'", [6]],
  ["note ine 'strasse'", [1, 3, 4, 5, 7, 8, 10]],
  ["not (note icontains 'L')", [3, 4, 6, 8]],
  ["note is null or note icontains 'WORLD'", [1, 2, 11]],
  // Combined with other operators
  ["text icontains 'a' and size gt 3", [6, 7, 10, 11]],
];

/** Where MariaDB's utf8mb4_general_ci makes plain `eq` case-blind (and accent-blind) unlike the `i` operators. */
const MARIADB_EQ: Readonly<Record<string, readonly number[]>> = { "text eq 'alpha'": [1, 2] };

eachDialect('case-insensitive operators', { entities: [WordSchema], seed }, (test, dialect) => {
  for (const [filter, rowIds] of ROWS) {
    const ids = (dialect === 'mariadb' ? MARIADB_EQ[filter] : undefined) ?? rowIds;
    test(filter, async ({ em }) => {
      const page = await createEngine(em, { policy, maxLimit: 100 })
        .from(words(em))
        .list({ filter, sort: 'id', limit: '100' });
      assert.equal(
        page.items.map((i) => i.id),
        [...ids],
      );
    });
  }

  test('values are bound parameters, and the column is folded as documented', async ({ em }) => {
    const engine = createEngine(em, { policy });
    const { calls } = await captureDriver(() => engine.from(words(em)).list({ filter: "text istartswith 'O''B%'" }));
    const data = calls.find((c) => /ci_word/.test(c.sql))!;
    // MariaDB: lower() would fold every letter its character set knows, so the column's bytes (`binary`) are matched
    // by a caseless regular expression, which folds A–Z only there; the value is quoted by the server (\Q…\E).
    const folded = {
      postgresql: 'lower("w"."text" collate "C")',
      sqlite: 'lower(',
      mariadb: 'binary `w`.`text` regexp concat(?, replace(?, ?, ?), ?)',
    }[dialect];
    assert.ok(data.sql.includes(folded), data.sql);
    assert.not.ok(data.sql.includes("O'B"), data.sql);
    const pattern = { postgresql: "o'b\\%%", sqlite: "o'b%*", mariadb: "o'b%" }[dialect];
    assert.ok(data.values.includes(pattern), String(data.values));
    if (dialect === 'mariadb') assert.ok(data.values.includes('(?i)\\A\\Q'), String(data.values));
  });

  test('one cached shape serves two values, each escaped and folded afresh', async ({ em }) => {
    const engine = createEngine(em, { policy });
    const bound = policy.bind(em);
    const list = async (value: string) =>
      (
        await engine
          .from(words(em))
          .list({ filter: `text istartswith '${value}' or note icontains '${value}'`, sort: 'id' })
      ).items.map((i) => i.id);
    const before = cachedShapeCount(bound);
    for (let round = 0; round < 2; round++) {
      assert.equal(await list('ALP'), [1, 2, 3]);
      assert.equal(await list('UNDER_'), [8]);
      assert.equal(await list('A_'), [4]);
      assert.equal(await list('A*'), [11]);
      assert.equal(await list('%'), [3, 8]);
      assert.equal(await list('Ä'), [4]);
    }
    assert.is(cachedShapeCount(bound), before + 1);
  });

  test('filterable() without arguments does not enable them', async ({ em }) => {
    const plain = schema(WordSchema).expose('text', filterable());
    const error = await createEngine(em, { policy: plain })
      .from(words(em))
      .list({ filter: "text ieq 'x'" })
      .catch((e: unknown) => e);
    assert.ok(isListError(error));
    assert.is(error.code, 'operator_not_allowed');
    assert.ok(!error.message.includes('ieq,') && error.message.includes('allowed: eq, ne'), error.message);
  });

  test('a field not declaring one refuses it, naming the allowed ones in order', async ({ em }) => {
    const error = await createEngine(em, { policy })
      .from(words(em))
      .list({ filter: "note istartswith 'x'" })
      .catch((e: unknown) => e);
    assert.ok(isListError(error));
    assert.is(error.code, 'operator_not_allowed');
    assert.ok(error.message.endsWith('allowed: ieq, ine, icontains, is null, is not null'), error.message);
  });

  test('only string fields can declare them; names equal to them are refused', ({ em }) => {
    for (const [make, says] of [
      [() => schema(WordSchema).expose('size', filterable('ieq') as never), "operator 'ieq' does not fit"],
      [() => schema(WordSchema).expose('id', filterable('icontains') as never), "operator 'icontains' does not fit"],
      [() => schema(WordSchema).expose('ine' as never, filterable()), "public name 'ine' is a reserved word"],
    ] as const) {
      try {
        (make as () => { bind(em: EntityManager): unknown })().bind(em);
        assert.unreachable(says);
      } catch (error) {
        assert.ok(isListError(error), String(error));
        assert.is(error.code, 'invalid_schema');
        assert.ok(error.message.includes(says), error.message);
      }
    }
  });

  test('describe() lists them in operator order, and toOpenAPI shows them', ({ em }) => {
    const description = createEngine(em, { policy }).describe();
    const fields = Object.fromEntries(description.fields.map((f) => [f.name, f.operators]));
    assert.equal(fields['text'], ['eq', 'ieq', 'ine', 'icontains', 'istartswith', 'iendswith']);
    assert.equal(fields['note'], ['ieq', 'ine', 'icontains', 'null']);
    const doc = toOpenAPI(description, { title: 'words', version: '1', path: '/words' }) as any;
    const filter = doc.paths['/words'].get.parameters.find((p: any) => p.name === 'filter');
    assert.ok(filter.description.includes('text: eq, ieq, ine, icontains, istartswith, iendswith'), filter.description);
  });

  test('indexes() advises an index on the folded column, and the database uses it', async ({ db, em }) => {
    const engine = createEngine(db.orm, { policy });
    const advice = engine.indexes().filter((a) => a.reason === 'case-insensitive');
    // MariaDB cannot index an expression without a generated column: no advice there.
    const expected =
      dialect === 'mariadb'
        ? []
        : dialect === 'postgresql'
          ? [
              [
                'create index if not exists "ci_word_text_folded_idx" on "ci_word" ((lower("text" collate "C")))',
                'filter=text ieq …, filter=text istartswith …',
              ],
              [
                'create index if not exists "ci_word_note_folded_idx" on "ci_word" ((lower("note" collate "C")))',
                'filter=note ieq …',
              ],
            ]
          : [
              [
                'create index if not exists `ci_word_text_folded_idx` on `ci_word` ((lower(`text`)))',
                'filter=text ieq …',
              ],
              [
                'create index if not exists `ci_word_note_folded_idx` on `ci_word` ((lower(`note`)))',
                'filter=note ieq …',
              ],
            ];
    assert.equal(
      advice.map((a) => [a.ddl, a.serves]),
      expected,
    );
    const conn = db.orm.em.getConnection();
    for (const a of advice) await conn.execute(a.ddl);
    const filters = {
      postgresql: ["text ieq 'ALPHA'", "text istartswith 'ALP'"],
      sqlite: ["text ieq 'ALPHA'"],
      mariadb: [],
    }[dialect];
    for (const filter of filters) {
      const { calls } = await captureDriver(() => engine.from(words(em)).list({ filter }));
      const data = calls.find((c) => /ci_word/.test(c.sql))!;
      const plan = await explainPlan(db, data.sql, data.values, { noSeqScan: true });
      assert.ok(plan.includes('ci_word_text_folded_idx'), `${filter}: ${plan}`);
    }
  });
});

/** The plan of a statement, with sequential scans discouraged on PostgreSQL (the table is tiny). */
