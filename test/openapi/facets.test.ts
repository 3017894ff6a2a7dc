/**
 * Facets in describe() and toOpenAPI(): the facet names with the JSON shapes of their values and labels, the limits;
 * the `facets` parameter (its names as a pattern that accepts what the server accepts) and the `facets` member of the
 * page, in a document the OpenAPI 3.1 validator accepts; an endpoint without facets documents neither.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { toOpenAPI } from '../../src/index.ts';
import { facetable, filterable, schema, sortable } from '../../src/policy/index.ts';
import { Author, Book, libraryEntities, seedLibrary, Tag } from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';

const policy = schema(Book)
  .expose('id', sortable())
  .expose('title', filterable())
  .expose('price', filterable(), facetable())
  .relation('author', schema(Author).expose('id').expose('name'), { facet: { label: 'name' } })
  .relation('tags', schema(Tag).expose('label'), { facet: true });
const INFO = { title: 'Library', version: '1.0.0' };

eachDialect('facets in describe() and OpenAPI', { entities: libraryEntities, seed: seedLibrary }, (test) => {
  test('describe() lists the facets with their value and label shapes', ({ em }) => {
    const description = createEngine(em, { policy }).describe();
    assert.equal(description.facets, [
      { name: 'price', of: 'field', value: { name: 'price', type: 'integer', nullable: true } },
      {
        name: 'author',
        of: 'one',
        value: { name: 'author', type: 'integer', nullable: true },
        label: { name: 'name', type: 'string', nullable: true },
      },
      { name: 'tags', of: 'many', value: { name: 'tags', type: 'integer', nullable: false } },
    ]);
    assert.is(description.limits.maxFacets, 5);
    assert.is(description.limits.maxFacetValues, 50);
  });

  test('the facets parameter and answer, in a valid document', async ({ em }) => {
    const doc = toOpenAPI([{ path: '/books', engine: createEngine(em, { policy }) }], INFO) as any;
    const operation = doc.paths['/books'].get;
    const parameter = operation.parameters.find((p: any) => p.name === 'facets');
    const pattern = new RegExp(parameter.schema.pattern);
    for (const ok of ['price', 'author,tags:5', 'tags:50,price']) assert.ok(pattern.test(ok), ok);
    for (const bad of ['title', 'price:0', 'price,', 'author/name']) assert.not.ok(pattern.test(bad), bad);
    const body = operation.responses['200'].content['application/json'].schema;
    const author = body.properties.facets.properties.author.items;
    assert.equal(author.required, ['value', 'count']);
    assert.equal(author.properties.label, { type: ['string', 'null'] });
    assert.equal(body.properties.facets.properties.price.items.properties.value, { type: ['integer', 'null'] });
    const result = await new Validator().validate(structuredClone(doc) as never);
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
  });

  test('an endpoint without facets documents neither', ({ em }) => {
    const plain = schema(Book).expose('id', sortable());
    const doc = toOpenAPI([{ path: '/books', engine: createEngine(em, { policy: plain }) }], INFO) as any;
    const operation = doc.paths['/books'].get;
    assert.not.ok(operation.parameters.some((p: any) => p.name === 'facets'));
    assert.not.ok('facets' in operation.responses['200'].content['application/json'].schema.properties);
    assert.equal(createEngine(em, { policy: plain }).describe().facets, []);
  });
});
