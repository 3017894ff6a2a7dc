/**
 * The `i` operators fold A–Z only, and every other character of the value is itself, whatever it means elsewhere:
 * MySQL and MariaDB match them with a caseless regular expression on the column's bytes (dialect/mysql/caseless.ts),
 * so regular-expression syntax in values (`.`, `(`, `\E`, `\Q`, `.*`), anchors against a trailing newline, and letters
 * outside ASCII (`Ä`, `ß`, the Kelvin sign) must mean the same as on SQLite and PostgreSQL.
 */
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/index.ts';
import { COST_ENTITIES, seedShelves, shelfPolicy, shelves } from '../bind/cost-fixture.ts';
import { eachDialect } from '../helpers/db.ts';

const ALL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

// Labels (cost-fixture.ts): 1 Alpha, 2 beta, 3 Gamma, 4 ÄRGER, 5 a(b), 6 x.y, 7 xzy, 8 a\Eb, 9 q\Qz, 10 "abc\n",
// 11 the Kelvin sign, 12 Straße.
const ROWS: readonly (readonly [string, readonly number[]])[] = [
  ["label ieq 'ALPHA'", [1]],
  ["label ieq 'ärger'", []],
  ["label ieq 'Ärger'", [4]],
  ["label icontains 'RGER'", [4]],
  ["label ieq 'A(B)'", [5]],
  ["label istartswith 'A('", [5]],
  ["label icontains '('", [5]],
  ["label ieq 'X.Y'", [6]],
  ["label icontains '.'", [6]],
  ["label icontains '.*'", []],
  ["label ieq 'A\\EB'", [8]],
  ["label icontains '\\E'", [8]],
  ["label icontains '\\Q'", [9]],
  ["label ieq 'Q\\QZ'", [9]],
  ["label iendswith 'B'", [8]],
  // A trailing newline is a character like any other: `$` would have matched before it.
  ["label ieq 'abc'", []],
  ["label istartswith 'ABC'", [10]],
  ["label iendswith 'c'", []],
  ["label ieq 'k'", []],
  ["label icontains 'SS'", []],
  ["label icontains 'strAß'", [12]],
  ["label ine 'alpha'", ALL.filter((i) => i !== 1)],
  ["label icontains '%' or label icontains '_' or label icontains '^'", []],
  ["label icontains ''", ALL],
];

eachDialect('i operators and metacharacters', { entities: COST_ENTITIES, seed: seedShelves }, (test) => {
  for (const [filter, ids] of ROWS)
    test(filter, async ({ em }) => {
      const page = await createEngine(em, { policy: shelfPolicy })
        .from(shelves(em))
        .list({ filter, sort: 'id', limit: '100' });
      assert.equal(
        page.items.map((i) => i.id),
        [...ids],
      );
    });
});
