/**
 * facets=: each facet's most frequent values with their counts beside the page, counted under the request's filter
 * without the facet's own clauses (cross-filtering), with the root's and the related entities' MikroORM filters (soft
 * delete, tenant) applied; NULL buckets for nullable fields and missing (or filtered-out) to-one rows; a many-to-many
 * counts each root row once per related row; ties ordered by value; client values bound; errors and budget refusals
 * before any statement.
 */
import type { EntityManager } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { isListError } from '../../src/errors.ts';
import { facetable, filterable, schema, sortable } from '../../src/policy/index.ts';
import { Author, Book, libraryEntities, seedLibrary, Tag, useTenant } from '../fixtures/library.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';

const f = filterable();
const s = sortable();
const policy = schema(Book)
  .expose('id', f, s)
  .expose('title', f, s)
  .expose('price', f, s, facetable())
  .relation('author', schema(Author).expose('id', f, s).expose('name', f, s), { facet: { label: 'name' } })
  .relation('tags', schema(Tag).expose('id', f, s).expose('label', f, s), { facet: { label: 'label' } });

const engine = (em: EntityManager, limits: Record<string, number> = {}) =>
  createEngine(em, { policy, limits }).from((em as any).createQueryBuilder(Book, 'b'));

type Bucket = { value: unknown; label?: unknown; count: number };
const values = (buckets: readonly Bucket[] | undefined) => (buckets ?? []).map((b) => [b.value, b.count]);

// Live books (Zeta is soft-deleted): 1 Alpha 10 Ann [red, blue] · 2 Beta NULL Ann [blue] · 3 Gamma 30 Bob [green(d)]
// · 4 Delta 5 Cid · 5 Eps 20 Dee(d) · 7 Eta 12 Eve (tenant 2) · 8 Theta 8 Cid [red, green(d)].
interface FacetRow {
  readonly name: string;
  readonly query: Record<string, string>;
  readonly facets: Record<string, readonly (readonly [unknown, number])[]>;
  readonly ids?: readonly number[];
}

const ROWS: readonly FacetRow[] = [
  {
    name: 'no filter: ties by value, the NULL bucket after the values',
    query: { facets: 'author,tags,price' },
    facets: {
      author: [
        [1, 2],
        [3, 2],
        [2, 1],
        [5, 1],
        [null, 1],
      ],
      tags: [
        [1, 2],
        [2, 2],
      ],
      price: [
        [5, 1],
        [8, 1],
        [10, 1],
        [12, 1],
        [20, 1],
        [30, 1],
        [null, 1],
      ],
    },
  },
  {
    name: 'cross-filtered: each facet leaves out its own clauses, the page keeps them all',
    query: { filter: "price gt 9 and author/name eq 'Ann'", facets: 'price,author,tags' },
    ids: [1],
    facets: {
      price: [
        [10, 1],
        [null, 1],
      ],
      author: [
        [1, 1],
        [2, 1],
        [5, 1],
        [null, 1],
      ],
      tags: [
        [1, 1],
        [2, 1],
      ],
    },
  },
  {
    name: 'an or of the facet field keeps applying',
    query: { filter: 'price lt 9 or price gt 25', facets: 'price' },
    ids: [3, 4, 8],
    facets: {
      price: [
        [5, 1],
        [8, 1],
        [30, 1],
      ],
    },
  },
  {
    name: 'a quantifier over the facet relation is its own clause',
    query: { filter: "tags/any(t: t/label eq 'blue') and price is not null", facets: 'tags,price' },
    ids: [1],
    facets: {
      tags: [
        [1, 2],
        [2, 1],
      ],
      price: [
        [10, 1],
        [null, 1],
      ],
    },
  },
  {
    name: 'the top N values',
    query: { facets: 'price:2,author:1' },
    facets: {
      price: [
        [5, 1],
        [8, 1],
      ],
      author: [[1, 2]],
    },
  },
];

eachDialect('engine facets', { entities: libraryEntities, seed: seedLibrary }, (test) => {
  for (const row of ROWS) {
    test(`facets: ${row.name}`, async ({ em }) => {
      const { result, calls } = await captureDriver(() => engine(em).list(row.query));
      const facets = result.facets as Record<string, readonly Bucket[]>;
      assert.equal(Object.keys(facets), Object.keys(row.facets), 'the facets in the order requested');
      for (const [name, expected] of Object.entries(row.facets)) assert.equal(values(facets[name]), expected, name);
      if (row.ids)
        assert.equal(
          result.items.map((i) => i.id),
          row.ids,
        );
      assert.is(calls.length, 1 + Object.keys(row.facets).length, 'one statement for the page, one per facet');
    });
  }

  test('labels come beside relation keys; the NULL bucket has none', async ({ em }) => {
    const { facets } = await engine(em).list({ facets: 'author,tags', limit: '0' });
    assert.equal(facets?.author, [
      { value: 1, label: 'Ann', count: 2 },
      { value: 3, label: 'Cid', count: 2 },
      { value: 2, label: 'Bob', count: 1 },
      { value: 5, label: 'Eve', count: 1 },
      { value: null, label: null, count: 1 },
    ]);
    assert.equal(facets?.tags, [
      { value: 1, label: 'red', count: 2 },
      { value: 2, label: 'blue', count: 2 },
    ]);
  });

  test('the tenant filter applies inside facet counts, to root and related rows alike', async ({ em }) => {
    useTenant(em, 1);
    const { facets } = await engine(em).list({ facets: 'author,price', limit: '0' });
    assert.equal(values(facets?.author), [
      [1, 2],
      [3, 2],
      [2, 1],
      [null, 1],
    ]);
    assert.equal(values(facets?.price), [
      [5, 1],
      [8, 1],
      [10, 1],
      [20, 1],
      [30, 1],
      [null, 1],
    ]);
  });

  test('a base scope that joins a to-many relation counts each root row once per value', async ({ em }) => {
    const base = (em as any).createQueryBuilder(Book, 'b').leftJoin('b.tags', 'bt');
    const { facets } = await createEngine(em, { policy }).from(base).list({ facets: 'price,author', limit: '0' });
    assert.equal(values(facets?.price).slice(0, 3), [
      [5, 1],
      [8, 1],
      [10, 1],
    ]);
    assert.equal(values(facets?.author).slice(0, 2), [
      [1, 2],
      [3, 2],
    ]);
  });

  test('client values reach the facet statements as bound parameters', async ({ em }) => {
    const { calls } = await captureDriver(() =>
      engine(em).list({ filter: "author/name eq 'Zoë' and price gt 7", facets: 'price,author' }),
    );
    const [page, price, author] = calls;
    for (const call of [page, price, author]) assert.not.match(call!.sql, /Zoë/);
    assert.ok(price!.values.includes('Zoë'), 'the price facet keeps the author clause, bound');
    assert.not.ok(price!.values.includes(7), 'the price facet drops its own clause');
    assert.ok(author!.values.includes(7), 'the author facet keeps the price clause, bound');
    assert.not.ok(author!.values.includes('Zoë'), 'the author facet drops its own clause');
  });

  const FAILURES: readonly (readonly [string, Record<string, string>, string, string, number?])[] = [
    ['an unknown name, with a suggestion', { facets: 'price,autor' }, 'unknown_field', 'facets', 6],
    ['a field not open to facets', { facets: 'title' }, 'field_not_facetable', 'facets', 0],
    ['a name twice', { facets: 'price, price' }, 'invalid_parameter', 'facets', 7],
    ['more values than maxFacetValues', { facets: 'price:51' }, 'limit_exceeded', 'facets', 6],
    ['more facets than maxFacets', { facets: 'a,b,c,d,e,f' }, 'limit_exceeded', 'facets', 10],
    ['a path', { facets: 'author/name' }, 'invalid_parameter', 'facets', 6],
    ['facets of a nested list', { 'tags.facets': 'label' }, 'invalid_parameter', 'tags.facets'],
  ];
  for (const [name, query, code, parameter, offset] of FAILURES) {
    test(`refused before any statement: ${name}`, async ({ em }) => {
      const { result, calls } = await captureDriver(() =>
        engine(em)
          .list(query)
          .catch((e: unknown) => e),
      );
      assert.ok(isListError(result), String(result));
      assert.is(result.code, code);
      assert.is(result.parameter, parameter);
      if (offset !== undefined) assert.is(result.position?.offset, offset);
      assert.is(calls.length, 0);
    });
  }

  test('the suggestion names a facetable name only', async ({ em }) => {
    const error = await engine(em)
      .list({ facets: 'autor' })
      .catch((e: unknown) => e);
    assert.ok(isListError(error));
    assert.match(error.message, /did you mean 'author'/);
  });

  test('the budget charges each facet and names the one that crosses it', async ({ em }) => {
    const { result, calls } = await captureDriver(() =>
      engine(em, { maxSubqueries: 2 })
        .list({ facets: 'author,tags,price' })
        .catch((e: unknown) => e),
    );
    assert.ok(isListError(result));
    assert.is(result.code, 'limit_exceeded');
    assert.is(result.parameter, 'facets');
    assert.is(result.position?.offset, 12);
    assert.match(result.message, /facet 'price' needs 0.5/);
    assert.is(calls.length, 0);
    const fits = await engine(em, { maxSubqueries: 2 }).list({ facets: 'author,tags', limit: '0' });
    assert.is(Object.keys(fits.facets ?? {}).length, 2);
  });

  test('pages() and items() refuse facets', async ({ em }) => {
    const error = await (async () => {
      for await (const _ of engine(em).pages({ facets: 'price' })) break;
    })().catch((e: unknown) => e);
    assert.ok(isListError(error));
    assert.is(error.parameter, 'facets');
  });

  test('explain() shows one grouped statement per facet, and runs none', async ({ em }) => {
    const { result, calls } = await captureDriver(() =>
      engine(em).explain({ filter: 'price gt 7', facets: 'author,price' }),
    );
    assert.is(calls.length, 0);
    assert.equal(
      result.facets?.map((f) => f.name),
      ['author', 'price'],
    );
    assert.match(result.facets![0]!.sql, /group by/i);
    assert.equal(result.facets![0]!.params.includes(7), true);
    assert.equal(result.facets![1]!.params.includes(7), false);
  });
});
