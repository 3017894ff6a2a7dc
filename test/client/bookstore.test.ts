/**
 * `listql/client` against the real bookstore (examples/bookstore: its Express routes, policies and tenant scopes) on
 * each database: requests built from `typeof bookPolicy`, sent by `listClient` over HTTP, pages typed by their
 * selection. A cursor walk with a nested selection gives every live book of the tenant once, in order, with its
 * author and best review; a filter with a quantifier, a quoted string and a decimal picks the right books; a nested
 * cursor continues one book's reviews; the tenant header of the client changes the rows; the server's errors surface
 * as ListClientError with code, parameter and byte position. Expected ids and values come from the seed, by hand.
 */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import { createApp } from '../../examples/bookstore/app.ts';
import type { BookstoreORM } from '../../examples/bookstore/database.ts';
import { ENTITIES } from '../../examples/bookstore/entities.ts';
import type { bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed } from '../../examples/bookstore/seed.ts';
import { client, decimal, ListClientError, listClient } from '../../src/client/index.ts';
import { eachDialect } from '../helpers/db.ts';

const books = client<typeof bookPolicy>();
/** Newest first, three a page, each with its author and its best review. */
const tour = books
  .fields('title', { author: ['name'] }, { reviews: ['reviewer', 'stars'] })
  .sort('-year')
  .limit(3)
  .nested('reviews', (r) => r.limit(1));

eachDialect('listql/client against the bookstore', { entities: ENTITIES, seed: (em) => seed(em) }, (test) => {
  const state: { server?: Server; base?: string } = {};

  test.before(async (ctx) => {
    const server = createApp(ctx.db.orm as unknown as BookstoreORM).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    state.server = server;
    state.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  test.after(() => {
    state.server?.close();
    state.server?.closeAllConnections();
  });

  test('pages() walks the cursors with a nested selection: every live book once, in order', async () => {
    const api = listClient(`${state.base}/books`);
    const pages: string[][] = [];
    const seen: unknown[] = [];
    for await (const page of api.pages(tour)) {
      pages.push(page.items.map((book) => book.title));
      for (const book of page.items)
        seen.push([
          book.id,
          book.author?.name,
          book.reviews.items.map((r) => `${r.reviewer} ${r.stars}`),
          book.reviews.page.hasMore,
        ]);
    }
    assert.equal(
      pages.map((p) => p.length),
      [3, 3, 2],
    );
    assert.equal(seen, [
      [6, 'Toni Morrison', ['gus 5'], false],
      [5, 'Italo Calvino', [], false],
      [7, 'Toni Morrison', ['ivy 3'], false],
      [2, 'Ursula K. Le Guin', ['cy 3'], false],
      [4, 'Italo Calvino', ['fay 4'], true],
      [1, 'Ursula K. Le Guin', ['ana 5'], true],
      [3, 'Ursula K. Le Guin', ['dee 5'], false],
      [8, 'Stanisław Lem', ['jo 2'], false],
    ]);
    const ids: number[] = [];
    for await (const book of api.items(books.fields('title').sort('title').limit(5))) ids.push(book.id);
    assert.equal(ids, [3, 6, 5, 4, 8, 7, 2, 1]);
  });

  test('filters with a quantifier, a quoted string, a decimal and a to-one path pick the right books', async () => {
    const api = listClient(`${state.base}/books`);
    const rows: [string, number[]][] = [];
    for (const [name, request] of [
      [
        'a review of 4 stars or more, not the quoted title, under 15.50',
        books.filter((b) =>
          b.and(
            b.any('reviews', 'r', (r) => r('stars', 'gte', 4)),
            b('title', 'ne', "If on a winter's night a traveler"),
            b('price', 'lt', decimal('15.50')),
          ),
        ),
      ],
      ['the quoted title itself', books.filter((b) => b('title', 'eq', "If on a winter's night a traveler"))],
      ['by an author whose name starts with Ursula', books.filter((b) => b('author/name', 'startswith', 'Ursula'))],
      ['every tag is not classic', books.filter((b) => b.all('tags', 't', (t) => t('name', 'ne', 'classic')))],
      ['a year in a list, or no filter at all', books.filter((b) => b.or(b('year', 'in', [1961, 1987]), undefined))],
    ] as const) {
      const page = await api.list(request.fields('title').sort('id'));
      rows.push([name, page.items.map((book) => book.id)]);
    }
    assert.equal(rows, [
      ['a review of 4 stars or more, not the quoted title, under 15.50', [1, 3, 4]],
      ['the quoted title itself', [5]],
      ['by an author whose name starts with Ursula', [1, 2, 3]],
      ['every tag is not classic', [2, 5, 7, 8]],
      ['a year in a list, or no filter at all', [6, 8]],
    ]);
  });

  test("a nested cursor continues one book's reviews; count and the client's headers reach the server", async () => {
    const api = listClient(`${state.base}/books`);
    const first = await api.list(tour.filter((b) => b('id', 'eq', 1)).count());
    assert.is(first.page.count, 1);
    const reviews = first.items[0]!.reviews;
    assert.equal(reviews.items, [{ id: 1, reviewer: 'ana', stars: 5 }]);
    const next = await api.list(
      tour.filter((b) => b('id', 'eq', 1)).nested('reviews', (r) => r.cursor(reviews.page.nextCursor)),
    );
    assert.equal(next.items[0]!.reviews.items, [{ id: 2, reviewer: 'ben', stars: 4 }]);
    assert.is(next.items[0]!.reviews.page.hasMore, false);

    const tenant2 = listClient(`${state.base}/books`, { headers: { 'x-tenant': '2' } });
    assert.equal((await tenant2.list(books.fields('title').sort('-year'))).items, [
      { id: 12, title: 'Cassandra' },
      { id: 11, title: 'The Neverending Story' },
      { id: 10, title: 'Momo' },
    ]);
  });

  test('errors surface as ListClientError with code, parameter and byte position', async () => {
    const api = listClient(`${state.base}/books`);
    const failures: unknown[] = [];
    for (const request of [
      // The policy allows title eq, ne, contains, startswith and in: its type does not record that list.
      books.filter((b) => b.and(b('title', 'ne', 'Łódź'), b('title', 'endswith', 'x'))),
      // publisher takes no null check: relation() did not say nullCheck.
      books.filter((b) => b('publisher', 'is null')),
      books.fields({ reviews: ['stars'] }).nested('reviews', (r) => r.limit(500)),
    ]) {
      const err = await api.list(request).catch((e: unknown) => e);
      assert.instance(err, ListClientError);
      const { status, code, parameter, position } = err as ListClientError;
      failures.push({ status, code, parameter, offset: position?.offset });
    }
    assert.equal(failures, [
      // `title ne 'Łódź' and title endswith 'x'`: 'Łódź' takes 7 bytes, so `endswith` starts at byte 29.
      { status: 400, code: 'operator_not_allowed', parameter: 'filter', offset: 29 },
      // `publisher is null`: at `is`.
      { status: 400, code: 'operator_not_allowed', parameter: 'filter', offset: 10 },
      // Above the relation's maxLimit (20): the whole value.
      { status: 400, code: 'limit_exceeded', parameter: 'reviews.limit', offset: undefined },
    ]);
    const wrongTenant = await listClient(`${state.base}/books`, { headers: { 'x-tenant': '9' } })
      .list(books)
      .then((): unknown => assert.unreachable('x-tenant 9 is refused'))
      .catch((e: unknown) => e);
    assert.instance(wrongTenant, ListClientError);
    const { status, code, parameter } = wrongTenant as ListClientError;
    assert.equal([status, code, parameter], [400, 'invalid_tenant', undefined]);
  });
});
