/**
 * The typed client's facets(): names the policy's type exposes, each optionally `:N`, written as the server reads
 * them; a name the policy does not expose does not compile, and a malformed one throws before any request.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { client } from '../../src/client/index.ts';
import { facetable, filterable, schema } from '../../src/policy/index.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { Author, Book } from '../fixtures/library.ts';

const policy = schema(Book)
  .expose('title', filterable())
  .expose('price', facetable())
  .relation('author', schema(Author).expose('name'), { facet: { label: 'name' } });

test('facets() writes the names as the server parses them', () => {
  const request = client<typeof policy>().facets('author', 'price:5').limit(0);
  assert.is(request.toString(), 'facets=author%2Cprice%3A5&limit=0');
  const parsed = parseHTTP(request.toString());
  assert.equal(
    parsed.facets?.map((t) => [t.name.name, t.limit]),
    [
      ['author', undefined],
      ['price', 5],
    ],
  );
  assert.is(client<typeof policy>().facets('price').facets().toString(), '');
});

test('facets() refuses what is not a facet name', () => {
  // @ts-expect-error: not a name the policy exposes
  client<typeof policy>().facets('isbn');
  assert.throws(() => client<typeof policy>().facets('price:0' as never), /not a facet/);
  assert.throws(() => client<typeof policy>().facets('author/name' as never), /not a facet/);
});
