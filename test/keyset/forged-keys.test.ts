/**
 * Forged cursor keys: a token with the right signature and the right JSON types, whose key is not a value its column
 * can hold in the form the engine writes it (out of the type's range, not a real date or time, U+0000, too long,
 * not an enum member, a decimal beyond its precision or scale or in a non-canonical form, a PostgreSQL `real` out of
 * single precision, a MariaDB FLOAT key that is no single-precision value, a DATETIME before year 1000 or a
 * TIMESTAMP outside 1970–2038), is `invalid_cursor` with zero statements sent, on every dialect and for every field
 * kind. The values the engine writes itself, and other values in the same canonical form, are accepted. A cursor
 * from another dialect is refused exactly when its keys are written in a form this dialect does not write. Also
 * here: U+0000 in `search` (or any other parameter) is refused at the NUL's byte offset, with zero statements.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine, type ScopedEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { fromQueryString } from '../../src/syntax/query-string.ts';
import { KEYED_FIELDS, Keyed, KeyedSchema, keyedPolicy, seedKeyed } from '../fixtures/keys.ts';
import { captureDriver } from '../helpers/capture.ts';
import { DIALECTS, type Dialect, eachDialect, openDatabase } from '../helpers/db.ts';

type Field = (typeof KEYED_FIELDS)[number];
type Key = string | number | boolean | null;

/** Forged first keys per field: refused (or accepted) on every dialect, and on one dialect only. */
interface Forged {
  readonly all?: readonly Key[];
  readonly sqlite?: readonly Key[];
  readonly postgresql?: readonly Key[];
  readonly mariadb?: readonly Key[];
}

/** The single-precision values nearest 1.1, the largest, and the smallest positive one, as exact doubles. */
const SINGLE_1_1 = Math.fround(1.1);
const SINGLE_MAX = 3.4028234663852886e38;
const SINGLE_MIN = Math.fround(1e-45);

const LONG_TEXT = 'x'.repeat(9);
const NUL = 'a\u0000b';

const REFUSED: Readonly<Record<Field, Forged>> = {
  // MariaDB's `int unsigned` holds 0 to 4294967295; PostgreSQL has no unsigned types (see storedRange).
  id: { all: [-1, 4294967296, 2 ** 53 - 1], postgresql: [3000000000, 2147483648] },
  small: { all: [32768, -32769, 3000000000] },
  code: { all: [LONG_TEXT, NUL, '\u0000', 'a\uD800', '\uDC00b', 'éééééééée'] },
  body: { all: [NUL, 'tail\u0000', '\uD83D'] },
  // MariaDB: a native ENUM sorts by position, so its keys are positions 1..2, and every string is the wrong type.
  status: { all: ['gone', 'Draft', '', 'draft\u0000'], mariadb: [0, 3, -1, 1.5, 'live'] },
  level: { all: [0, 4, -1, 3000000000] },
  big: { all: ['9223372036854775808', '-9223372036854775809', '-0', '99999999999999999999999'] },
  ubig: {
    all: ['-1', '-9223372036854775808', '18446744073709551616'],
    sqlite: ['9223372036854775808', '18446744073709551615'],
    postgresql: ['9223372036854775808', '18446744073709551615'],
    mariadb: ['99999999999999999999', '-0'],
  },
  price: {
    all: ['10000.00', '10000', '-0', '-0.00', '1.234', '123456.5'],
    sqlite: ['1.50', '1.20', '2.00', '0.10000000000000000001'],
    postgresql: ['1.5', '2', '1.250', '0.1'],
    mariadb: ['1.5', '2', '1.250', '0.1'],
  },
  rating: { all: ['1', true] },
  ratio: {
    all: ['1.1'],
    postgresql: [1e39, -1e39, 1e-50, 1.1000000001, 3.5e38, 3.4028234663852886e38],
    // A MariaDB FLOAT key is the exact double of a single-precision value: 1.1 itself is none.
    mariadb: [1.1, 0.1, 1e39, 1e-50, 3.5e38, SINGLE_1_1 + 2 ** -40],
  },
  flag: { all: [1, 0, 'true'] },
  day: {
    all: [
      '2024-13-01',
      '2023-02-29',
      '2024-02-30',
      '2024-04-31',
      '0000-01-01',
      '2024-00-10',
      '2024-1-01',
      '2024-01-01T00:00:00',
    ],
  },
  at: {
    sqlite: [253402300800000, -62135596800001, 8.64e15, '2024-01-01T00:00:00.000000'],
    postgresql: [
      '2024-13-01T00:00:00.000000',
      '2024-02-30T00:00:00.000000',
      '2023-02-29T00:00:00.000000',
      '2024-01-01T25:00:00.000000',
      '2024-01-01T24:00:00.000000',
      '2024-01-01T00:60:00.000000',
      '2024-01-01T00:00:60.000000',
      '0000-01-01T00:00:00.000000',
      '2024-01-01T00:00:00.000000Z',
      '2024-01-01T00:00:00.000',
      '2024-01-01 00:00:00.000000',
      '2024-01-01T00:00:00.000000+00:00',
      0,
    ],
    // A TIMESTAMP(6): 1970-01-01 00:00:01 to 2038-01-19 03:14:07.999999 (UTC sessions), no zone suffix.
    mariadb: [
      '1970-01-01T00:00:00.999999',
      '2038-01-19T03:14:08.000000',
      '0001-01-01T00:00:00.000000',
      '2024-13-01T00:00:00.000000',
      '2024-02-30T00:00:00.000000',
      '2024-01-01T24:00:00.000000',
      '2024-01-01T00:00:00.000000Z',
      '2024-01-01T00:00:00.000',
      '2024-01-01 00:00:00.000000',
      0,
    ],
  },
  atz: {
    sqlite: [253402300800000, '2024-01-01T00:00:00.000000Z'],
    postgresql: [
      '2024-13-01T00:00:00.000000Z',
      '2024-02-30T00:00:00.000000Z',
      '2024-01-01T25:00:00.000000Z',
      '2024-01-01T00:00:00.000000',
      '2024-01-01T00:00:00.000000+01:00',
      '2024-01-01T00:00:00.0000000Z',
    ],
    // A DATETIME(6): years 0001 to 9999, no zone suffix.
    mariadb: [
      '0000-12-31T23:59:59.999999',
      '2024-01-01T00:00:00.000000Z',
      '2024-02-30T00:00:00.000000',
      '2024-01-01T00:00:00.0000000',
      '2024-01-01T00:00:00.000000+01:00',
      253402300800000,
    ],
  },
  uuid: {
    all: ['not-a-uuid', '0b6a1c525f3c4f0e9f5e000000000001', '0b6a1c52-5f3c-4f0e-9f5e-00000000000g', NUL],
    postgresql: ['0B6A1C52-5F3C-4F0E-9F5E-000000000001'],
  },
};

/** Values in the engine's canonical form that a cursor may carry although no row holds them. */
const ACCEPTED: Readonly<Record<Field, Forged>> = {
  id: { all: [0, 2147483647], sqlite: [4294967295], mariadb: [4294967295, 3000000000] },
  small: { all: [32767, -32768] },
  code: { all: ['éééééééé', '', '😀😀😀😀😀😀😀😀'] },
  body: { all: ['x'.repeat(500), 'line\nbreak'] },
  status: { sqlite: ['live'], postgresql: ['live'], mariadb: [1, 2] },
  level: { all: [3] },
  big: { all: ['9223372036854775807', '-9223372036854775808', '0'] },
  ubig: { all: ['0', '9223372036854775807'], mariadb: ['18446744073709551615', '9223372036854775808'] },
  price: {
    all: ['9999.99', '-9999.99'],
    sqlite: ['1.5', '2', '0.1'],
    postgresql: ['1.50', '2.00', '0.10', '0.00'],
    mariadb: ['1.50', '2.00', '0.10', '0.00'],
  },
  rating: { all: [1e308, -5e-324, 0.1] },
  ratio: {
    all: [0],
    sqlite: [1.1, 1e39],
    postgresql: [1.1, 3.4028235e38, 1e-45],
    mariadb: [SINGLE_1_1, SINGLE_MAX, -SINGLE_MAX, SINGLE_MIN, -2.5],
  },
  flag: { all: [true, false] },
  day: {
    all: ['2024-02-29', '9999-12-31'],
    // Every dialect stores years 0001–9999 (MariaDB's DATE too, below the 1000 its manual names).
    sqlite: ['0001-01-01'],
    postgresql: ['0001-01-01'],
    mariadb: ['0001-01-01', '0999-12-31', '1000-01-01'],
  },
  at: {
    sqlite: [0, 253402300799999, -62135596800000],
    postgresql: ['2024-02-29T23:59:59.999999', '0001-01-01T00:00:00.000000'],
    mariadb: ['2024-02-29T23:59:59.999999', '1970-01-01T00:00:01.000000', '2038-01-19T03:14:07.999999'],
  },
  atz: {
    sqlite: [1],
    postgresql: ['2024-02-29T23:59:59.999999Z', '9999-12-31T23:59:59.999999Z'],
    mariadb: [
      '2024-02-29T23:59:59.999999',
      '0001-01-01T00:00:00.000000',
      '0999-12-31T23:59:59.999999',
      '9999-12-31T23:59:59.999999',
    ],
  },
  uuid: {
    all: ['0b6a1c52-5f3c-4f0e-9f5e-000000000001'],
    sqlite: ['0B6A1C52-5F3C-4F0E-9F5E-000000000001'],
    mariadb: ['0B6A1C52-5F3C-4F0E-9F5E-000000000001'],
  },
};

interface Doc {
  v: number;
  s: string;
  k: Key[];
}

const decode = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Doc;
const encode = (doc: Doc) =>
  Buffer.from(JSON.stringify({ v: doc.v, s: doc.s, k: doc.k }), 'utf8').toString('base64url');
const valuesFor = (table: Forged, dialect: Dialect) => [...(table.all ?? []), ...(table[dialect] ?? [])];
const show = (value: Key) => JSON.stringify(value).slice(0, 40);

function keyed(em: EntityManager): ScopedEngine {
  return createEngine(em, { policy: keyedPolicy }).from((em as any).createQueryBuilder(Keyed, 'k'));
}

/** A valid cursor of `sort=<field>` after the first row, decoded. */
async function validDoc(em: EntityManager, field: Field): Promise<Doc> {
  const page = await keyed(em).list({ sort: field, limit: '1' });
  assert.ok(page.page.nextCursor, `sort=${field} has a next page`);
  return decode(page.page.nextCursor);
}

/** Run list() with a cursor; return the error (or undefined) and the statements the drivers received. */
async function attempt(em: EntityManager, query: Record<string, string>) {
  const scoped = keyed(em);
  const { result, calls } = await captureDriver(() =>
    scoped.list(query).then(
      () => undefined,
      (err: unknown) => err,
    ),
  );
  return { error: result, calls };
}

eachDialect('forged cursor keys', { entities: [KeyedSchema], seed: seedKeyed }, (test, dialect) => {
  for (const field of KEYED_FIELDS) {
    test(`${field}: the engine's own cursor and other canonical keys are accepted`, async ({ em }) => {
      const doc = await validDoc(em, field);
      for (const value of [doc.k[0]!, ...valuesFor(ACCEPTED[field], dialect)]) {
        const { error } = await attempt(em, { sort: field, cursor: encode({ ...doc, k: [value, ...doc.k.slice(1)] }) });
        assert.is(error, undefined, `${field} key ${show(value)} refused: ${String(error)}`);
      }
    });

    test(`${field}: keys its column cannot hold are invalid_cursor with zero statements`, async ({ em }) => {
      const doc = await validDoc(em, field);
      const values = valuesFor(REFUSED[field], dialect);
      assert.ok(values.length > 0, `no forged keys for ${field} on ${dialect}`);
      for (const value of values) {
        const cursor = encode({ ...doc, k: [value, ...doc.k.slice(1)] });
        const { error, calls } = await attempt(em, { sort: field, cursor });
        assert.ok(isListError(error), `${field} key ${show(value)} accepted (${String(error)})`);
        assert.is(error.code, 'invalid_cursor', `${field} key ${show(value)}: ${error.code} ${error.message}`);
        assert.is(error.parameter, 'cursor');
        assert.is(calls.length, 0, `${field} key ${show(value)}: statements ran`);
      }
    });
  }

  // A filter literal meets the same rules as a cursor key: one the column cannot hold never reaches the database.
  const ALL: readonly Dialect[] = ['sqlite', 'postgresql', 'mariadb'];
  const LITERALS: readonly { filter: string; refused: readonly Dialect[] }[] = [
    { filter: 'id eq -1', refused: ALL },
    { filter: 'id eq 4294967296', refused: ALL },
    { filter: 'id eq 3000000000', refused: ['postgresql'] },
    { filter: 'ubig eq 9223372036854775808', refused: ['sqlite', 'postgresql'] },
    { filter: 'ubig eq 18446744073709551615', refused: ['sqlite', 'postgresql'] },
    { filter: 'ubig eq 18446744073709551616', refused: ALL },
    { filter: 'ubig lt -1', refused: ALL },
    { filter: 'small gt 40000', refused: ALL },
    { filter: "day eq '0000-01-01'", refused: ALL },
    { filter: "day gt '0999-12-31'", refused: [] },
    { filter: "at lt '0001-01-01T00:30:00+01:00'", refused: ALL },
    { filter: "atz gt '0999-12-31T23:59:59Z'", refused: [] },
    { filter: "atz gt '1000-01-01T00:00:00Z'", refused: [] },
    { filter: "at lt '1970-01-01T00:00:00.999Z'", refused: ['mariadb'] },
    { filter: "at gt '2038-01-19T03:14:08Z'", refused: ['mariadb'] },
    { filter: "at gt '2038-01-19T03:14:07.999Z'", refused: [] },
    { filter: 'ratio eq 1e39', refused: ['postgresql', 'mariadb'] },
    { filter: 'ratio gt 1e-50', refused: ['postgresql', 'mariadb'] },
    { filter: 'ratio lt 3.4e38', refused: [] },
  ];
  for (const row of LITERALS)
    test(`filter ${row.filter}: ${row.refused.includes(dialect) ? 'invalid_literal, zero statements' : 'runs'}`, async ({
      em,
    }) => {
      const { error, calls } = await attempt(em, { filter: row.filter });
      if (!row.refused.includes(dialect)) {
        assert.is(error, undefined, String(error));
        return;
      }
      assert.ok(isListError(error), String(error));
      assert.is(error.code, 'invalid_literal', error.message);
      assert.is(error.parameter, 'filter');
      assert.is(calls.length, 0);
    });

  test('a forged tie-breaker (the unsigned primary key) is refused too', async ({ em }) => {
    const doc = await validDoc(em, 'code');
    for (const id of [-1, 4294967296]) {
      const { error, calls } = await attempt(em, { sort: 'code', cursor: encode({ ...doc, k: [doc.k[0]!, id] }) });
      assert.ok(isListError(error) && error.code === 'invalid_cursor', `id ${id}: ${String(error)}`);
      assert.is(calls.length, 0);
    }
  });

  /**
   * The fields whose keys another dialect writes in a form this one does not, by (this dialect, other dialect):
   * datetimes are epoch milliseconds on SQLite and text elsewhere, with `Z` only on PostgreSQL's timestamptz;
   * numeric(6,2) is `1.50` on PostgreSQL and MariaDB, `1.5` on SQLite; a MariaDB native ENUM's key is its position;
   * a MariaDB FLOAT key is the exact double of the single (1.100000023841858), which PostgreSQL's `real` (read as
   * 1.1) does not write, and a double SQLite accepts as another position.
   */
  const FOREIGN: Readonly<Record<Dialect, Partial<Record<Dialect, readonly string[]>>>> = {
    sqlite: { postgresql: ['price', 'at', 'atz'], mariadb: ['status', 'price', 'at', 'atz'] },
    postgresql: { sqlite: ['price', 'at', 'atz'], mariadb: ['status', 'ratio', 'atz'] },
    mariadb: { sqlite: ['status', 'price', 'ratio', 'at', 'atz'], postgresql: ['status', 'ratio', 'atz'] },
  };

  for (const otherDialect of DIALECTS.filter((d) => d !== dialect))
    test(`a ${otherDialect} cursor: refused where the key forms differ, accepted where they agree`, async ({ em }) => {
      const other = await openDatabase(otherDialect, [KeyedSchema]);
      const refused: string[] = [];
      try {
        await seedKeyed(other.orm.em.fork());
        for (const field of KEYED_FIELDS) {
          const query = { sort: field, limit: '1' };
          const own = (await keyed(em).list(query)).page.nextCursor!;
          const foreign = (await keyed(other.orm.em.fork()).list(query)).page.nextCursor!;
          const { error, calls } = await attempt(em, { sort: field, cursor: foreign });
          if (foreign === own) {
            assert.is(error, undefined, `${field}: a token both dialects write alike is refused`);
            continue;
          }
          if (error === undefined) continue;
          assert.ok(isListError(error) && error.code === 'invalid_cursor', `${field}: ${String(error)}`);
          assert.is(calls.length, 0);
          refused.push(field);
        }
      } finally {
        await other.dispose();
      }
      assert.equal(refused, FOREIGN[dialect][otherDialect]);
    });

  test('U+0000 in search or any other parameter is refused at its byte offset, with zero statements', async ({
    em,
  }) => {
    const engine = createEngine(em, {
      policy: keyedPolicy,
      search: (_ctx, qb, term) => qb.andWhere({ code: term }),
    });
    const scoped = engine.from((em as any).createQueryBuilder(Keyed, 'k'));
    // A filter string refuses control characters in the grammar itself, with its own token code; sort names and the
    // cursor's base64url alphabet have no room for U+0000 either.
    for (const [raw, offset, code] of [
      ['search=%00', 0, 'invalid_parameter'],
      ['search=ab%00cd', 2, 'invalid_parameter'],
      ['search=%C3%A9%00', 2, 'invalid_parameter'],
      ['filter=code%20eq%20%27a%00%27', 10, 'invalid_token'],
      ['sort=co%00de', 2, 'invalid_parameter'],
      ['cursor=ab%00', 2, 'invalid_cursor'],
    ] as const) {
      const { result, calls } = await captureDriver(() =>
        scoped.list(fromQueryString(raw)).then(
          () => undefined,
          (err: unknown) => err,
        ),
      );
      assert.ok(isListError(result), `${raw}: ${String(result)}`);
      assert.is(result.code, code, `${raw}: ${result.message}`);
      assert.is(result.position?.offset, offset, `${raw}: ${JSON.stringify(result.position)}`);
      assert.is(calls.length, 0, `${raw}: statements ran`);
    }
    // The same terms without the NUL reach the search callback and run.
    const page = await scoped.list(fromQueryString('search=c1'));
    assert.equal(
      page.items.map((i) => i.id),
      [1],
    );
  });
});
