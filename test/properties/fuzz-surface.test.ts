/**
 * Fuzzing the request surface without a database: every input through fromQueryString → parseHTTP → resolveQuery
 * either succeeds or throws a ListError with a registered code, a short message and a position inside the value.
 * Never another exception, never a hang. The budget (inputs per family) is printed by the test names.
 */
import type { MikroORM } from '@mikro-orm/core';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveQuery } from '../../src/bind/index.ts';
import type { BoundSchema } from '../../src/bind/types.ts';
import { ERROR_STATUS, isListError } from '../../src/errors.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { fromQueryString } from '../../src/syntax/query-string.ts';
import { catalogEntities } from '../fixtures/catalog.ts';
import { openDatabase, type TestDatabase } from '../helpers/db.ts';
import { filterArb, spacingArb } from '../oracle/arbitraries.ts';
import { budget, SEED } from '../oracle/budget.ts';
import { productPolicy, productSpec } from '../oracle/catalog.ts';
import { printFilter } from '../oracle/filter.ts';
import {
  cursorArb,
  limitFilterArb,
  mutationArb,
  objectQueryArb,
  percentBytes,
  rawQueryArb,
  scalarArb,
  sortArb,
} from '../oracle/fuzz.ts';
import { soupArb as fieldsSoup, mutatedArb as mutatedFields, validArb as validFields } from '../syntax/fields-cases.ts';

/** One input may take at most this long: anything slower counts as a hang. */
const HANG_MS = 1000;
const MAX_MESSAGE = 240;
const encoder = new TextEncoder();

let db: TestDatabase | undefined;
let bound: BoundSchema;
let total = 0;
let slowest = 0;

function show(input: unknown): string {
  const text = typeof input === 'string' ? input : JSON.stringify(input);
  return JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}…(${text.length})` : text);
}

/** Run one input through the surface and assert it ends in a result or a well-formed ListError. */
function probe(input: string | Record<string, unknown>): void {
  total++;
  const started = performance.now();
  let values: Record<string, unknown> | undefined;
  try {
    values = fromQueryString(input as string) as Record<string, unknown>;
    resolveQuery(bound, parseHTTP(values as never));
  } catch (err) {
    if (!isListError(err)) throw new Error(`non-ListError ${String(err)} for ${show(input)}`);
    assert.ok(err.code in ERROR_STATUS, `unregistered code ${err.code}`);
    assert.ok(err.message.length <= MAX_MESSAGE, `message of ${err.message.length} chars for ${show(input)}`);
    const json = err.toJSON() as unknown as Record<string, unknown>;
    for (const key of Object.keys(json))
      assert.ok(['code', 'message', 'parameter', 'position'].includes(key), `extra key ${key}`);
    if (err.position) {
      const value = err.parameter === undefined ? undefined : values?.[err.parameter];
      const { offset, line, column } = err.position;
      assert.ok(offset >= 0 && line >= 1 && column >= 1, `bad position for ${show(input)}`);
      if (typeof value === 'string')
        assert.ok(offset <= encoder.encode(value).length, `position past the value for ${show(input)}`);
    }
  }
  const took = performance.now() - started;
  slowest = Math.max(slowest, took);
  if (took > HANG_MS) throw new Error(`${took.toFixed(0)} ms for ${show(input)}`);
}

async function fuzz<T>(arb: fc.Arbitrary<T>, runs: number, toInput: (value: T) => string | Record<string, unknown>) {
  const details = fc.check(
    fc.property(arb, (v) => probe(toInput(v))),
    { seed: SEED, numRuns: runs },
  );
  if (!details.failed) return;
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`${fc.defaultReportMessage(details)}\nError: ${cause}\nReplay: LISTQL_SEED=${SEED}`);
}

/** Tell whether a string has no lone surrogate (only those can be percent-encoded). */
const wellFormed = (s: string): boolean => !/\p{Cs}/u.test(s);

/** Send a filter as a raw query string when it can be percent-encoded, else as a framework query object. */
function asFilter(text: string): string | Record<string, unknown> {
  return wellFormed(text) ? `filter=${encodeURIComponent(text)}` : { filter: text };
}

const validFilter = fc
  .tuple(filterArb(productSpec, { depth: 3, hops: 0, quantifiers: 0 }), spacingArb)
  .map(([f, s]) => printFilter(f, s));

/** A nested parameter's name: a path of keys (some not names at all) and a parameter (some not listql's). */
const nestedNameArb = fc
  .tuple(
    fc.array(fc.constantFrom('reviews', 'best', 'tags', 'a', '__proto__', 'constructor', '', '1a', 'é', 'a-b'), {
      minLength: 1,
      maxLength: 5,
    }),
    fc.constantFrom('filter', 'sort', 'limit', 'offset', 'cursor', 'count', 'fields', 'search', 'Filter', 'x', ''),
  )
  .map(([keys, parameter]) => `${keys.join('.')}.${parameter}`);

/** A value any nested parameter might get: a filter (valid or mutated), a sort, a cursor or a scalar. */
const nestedValueArb = fc
  .oneof(validFilter, mutationArb(validFilter), sortArb, cursorArb, scalarArb, fc.constantFrom('true', 'estimated'))
  .filter(wellFormed);

/** Up to six nested parameters (names repeat, so duplicates and shared paths happen) beside a nested `fields`. */
const nestedQueryArb = fc
  .tuple(fc.array(fc.tuple(nestedNameArb, nestedValueArb), { maxLength: 6 }), validFields)
  .map(([parts, fields]) => [...parts, ['fields', fields] as [string, string]]);

const FAMILIES: readonly { name: string; runs: number; run: (runs: number) => Promise<void> }[] = [
  { name: 'whole raw query strings', runs: 12000, run: (n) => fuzz(rawQueryArb, n, (q) => q) },
  {
    name: 'random bytes (invalid UTF-8 too) in each known parameter',
    runs: 6000,
    run: (n) =>
      fuzz(
        fc.tuple(fc.constantFrom('filter', 'sort', 'limit', 'offset', 'cursor', 'count', 'search'), fc.uint8Array()),
        n,
        ([name, bytes]) => `${name}=${percentBytes(bytes)}`,
      ),
  },
  {
    name: 'grammar-aware mutations of valid filters',
    runs: 15000,
    run: (n) => fuzz(mutationArb(validFilter), n, asFilter),
  },
  { name: 'valid filters, unchanged', runs: 3000, run: (n) => fuzz(validFilter, n, asFilter) },
  {
    name: 'nesting, lists and sizes at and over the limits',
    runs: 3000,
    run: (n) => fuzz(limitFilterArb, n, asFilter),
  },
  {
    name: 'any Unicode text as a filter',
    runs: 4000,
    run: (n) => fuzz(fc.string({ unit: 'binary', maxLength: 60 }), n, (f) => ({ filter: f })),
  },
  {
    name: 'sort values',
    runs: 4000,
    run: (n) => fuzz(sortArb, n, (s) => (wellFormed(s) ? `sort=${encodeURIComponent(s)}` : { sort: s })),
  },
  {
    name: 'cursor values',
    runs: 4000,
    run: (n) => fuzz(cursorArb, n, (c) => `cursor=${encodeURIComponent(c)}&sort=-price`),
  },
  {
    name: 'limit, offset, count and search values',
    runs: 4000,
    run: (n) =>
      fuzz(fc.tuple(fc.constantFrom('limit', 'offset', 'count', 'search'), scalarArb), n, ([k, v]) => ({ [k]: v })),
  },
  { name: 'framework query objects of the wrong shape', runs: 3000, run: (n) => fuzz(objectQueryArb, n, (o) => o) },
  {
    name: 'fields: nested and aliased selections, their mutations, token soup',
    runs: 4000,
    run: (n) =>
      fuzz(fc.oneof(validFields, mutatedFields, fieldsSoup), n, (f) =>
        wellFormed(f) ? `fields=${encodeURIComponent(f)}` : { fields: f },
      ),
  },
  {
    name: 'path-named parameters of nested lists: random names, values and repeats',
    runs: 4000,
    run: (n) => fuzz(nestedQueryArb, n, (parts) => parts.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')),
  },
];

test.before(async () => {
  db = await openDatabase('sqlite', catalogEntities);
  bound = productPolicy.bind(db.orm as MikroORM);
});

test.after(async () => {
  await db?.dispose();
});

for (const family of FAMILIES) {
  const runs = budget(family.runs);
  test(`fuzz: ${runs} × ${family.name}`, () => family.run(runs));
}

test('fuzz: the budget ran', () => {
  const planned = FAMILIES.reduce((sum, f) => sum + budget(f.runs), 0);
  assert.ok(total >= planned, `${total} of ${planned} inputs`);
  assert.ok(planned >= 50_000);
  process.stdout.write(`\n  fuzz: ${total} inputs, slowest ${slowest.toFixed(1)} ms\n`);
});

test.run();
