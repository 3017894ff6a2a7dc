/**
 * toOpenAPI and nested selection: for every relation a policy opts in with `selectable(…)`, the document names the
 * nested items (`BooksAuthorItem`), each to-many relation's page per parent (`BooksReviewsPage`), the path-named
 * list parameters of each selectable to-many path down to the depth limit (`reviews.limit`, `author.books.sort`, …)
 * with the relation's own bounds, and a `fields` pattern that accepts the nested grammar as deep as the policy goes.
 * The document stays valid OpenAPI 3.1, and the nested answers list() really gives, as the HTTP layer writes them,
 * fit the 200 response schema on every dialect.
 */
import type { SqlEntityManager } from '@mikro-orm/sql';
import { Validator } from '@seriousme/openapi-schema-validator';
import * as assert from 'uvu/assert';
import { createEngine } from '../../src/engine/index.ts';
import { stringifyJSON } from '../../src/http/errors.ts';
import { type EngineDescription, type OpenAPIDocument, toOpenAPI } from '../../src/index.ts';
import { filterable, schema, selectable, sortable } from '../../src/policy/index.ts';
import { Author, Book, libraryEntities, Profile, Publisher, Review, seedLibrary, Tag } from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';

const profileFields = schema(Profile).expose('id').expose('bio', filterable());
const authorBooks = schema(Book).expose('id').expose('title', filterable('eq'), sortable()).expose('price', sortable());
const authorFields = schema(Author)
  .expose('id')
  .expose('name', filterable('eq'), sortable())
  .relation('profile', profileFields, selectable())
  .relation('books', authorBooks, selectable({ maxLimit: 5, defaultLimit: 2, defaultSort: '-price' }));
const reviewFields = schema(Review).expose('id').expose('stars', filterable(), sortable());
const policy = schema(Book)
  .expose('id', sortable())
  .expose('title', filterable(), sortable())
  .expose('price', sortable())
  .relation('author', authorFields, selectable())
  // Exposed for filters only: never selectable, so nothing of it appears among the selections.
  .relation('publisher', schema(Publisher).expose('name', filterable()))
  .relation(
    'reviews',
    reviewFields,
    selectable({ maxLimit: 10, defaultLimit: 3, defaultSort: '-stars', allowCount: true }),
  )
  .relation('tags', schema(Tag).expose('label', sortable()), selectable());

const OPTIONS = { path: '/books', title: 'Books', version: '1.0.0' };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

async function assertValid(doc: OpenAPIDocument): Promise<void> {
  const result = await new Validator().validate(structuredClone(doc) as never);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
}

/**
 * Where `value` breaks `schema` (the subset toOpenAPI writes: $ref, anyOf, allOf, object properties and required,
 * array items, type, enum, pattern): a list of `path: why`, empty when it fits. A key no schema names fails, unless
 * `aliases` says which relation it is an alias of.
 */
function misfits(doc: any, schema: any, value: unknown, at = '$', aliases: Record<string, string> = {}): string[] {
  const fit = (s: any, v: unknown, where: string) => misfits(doc, s, v, where, aliases);
  if (schema.$ref) return fit(doc.components.schemas[schema.$ref.split('/').pop()], value, at);
  if (schema.allOf) return schema.allOf.flatMap((s: any) => fit(s, value, at));
  if (schema.anyOf)
    return schema.anyOf.some((s: any) => fit(s, value, at).length === 0) ? [] : [`${at}: fits no anyOf`];
  if (schema.enum) return schema.enum.includes(value) ? [] : [`${at}: ${JSON.stringify(value)} not in enum`];
  const types: string[] = schema.type === undefined ? [] : [schema.type].flat();
  const type = Array.isArray(value)
    ? 'array'
    : value === null
      ? 'null'
      : Number.isInteger(value)
        ? 'integer'
        : typeof value === 'number'
          ? 'number'
          : typeof value;
  if (types.length && !types.includes(type) && !(type === 'integer' && types.includes('number')))
    return [`${at}: ${type} is not ${types.join('|')}`];
  if (type === 'string' && schema.pattern && !new RegExp(schema.pattern).test(value as string))
    return [`${at}: does not match ${schema.pattern}`];
  if (type === 'array') return (value as unknown[]).flatMap((v, i) => fit(schema.items ?? {}, v, `${at}[${i}]`));
  if (type !== 'object') return [];
  const object = value as Record<string, unknown>;
  const out = (schema.required ?? [])
    .filter((k: string) => !(k in object))
    .map((k: string) => `${at}: ${k} is required`);
  for (const [key, v] of Object.entries(object)) {
    // An alias is the client's own key (additional properties stay open): its value is the aliased relation's.
    const property = schema.properties?.[key] ?? schema.properties?.[aliases[key] ?? ''];
    if (!property) out.push(`${at}.${key}: not in the schema`);
    else out.push(...fit(property, v, `${at}.${key}`));
  }
  return out;
}

eachDialect('toOpenAPI nested selection', { entities: libraryEntities, seed: seedLibrary }, (test) => {
  test('every selectable relation gets its item schema, every to-many one its page, in depth-first order', async ({
    em,
  }) => {
    const doc = toOpenAPI(createEngine(em, { policy, allowCount: true }).describe(), OPTIONS) as any;
    await assertValid(doc);
    assert.equal(Object.keys(doc.components.schemas), [
      'BooksItem',
      'BooksAuthorItem',
      'BooksAuthorProfileItem',
      'BooksAuthorBooksPage',
      'BooksAuthorBooksItem',
      'BooksReviewsPage',
      'BooksReviewsItem',
      'BooksTagsPage',
      'BooksTagsItem',
      'ListError',
      'InternalError',
    ]);
    const { schemas } = doc.components;
    // The root item: the author key without a selection, the author object (or null) with one; reviews a page.
    const key = 'The primary key of the related row.';
    assert.equal(schemas.BooksItem.properties.author.anyOf, [
      { type: 'integer', description: key },
      ref('BooksAuthorItem'),
      { type: 'null' },
    ]);
    assert.match(schemas.BooksItem.properties.author.description, 'with `fields=author(…)`, the related object');
    assert.equal(schemas.BooksItem.properties.reviews.allOf, [ref('BooksReviewsPage')]);
    assert.equal(schemas.BooksItem.properties.tags.allOf, [ref('BooksTagsPage')]);
    // Not selectable: the key items carry (a composite key: any value), and nothing else.
    assert.equal(schemas.BooksItem.properties.publisher, { description: key });
    // Nested items name only the key and what fields may pick there: no tenant, no deletedAt, no review's book key.
    assert.equal(Object.keys(schemas.BooksReviewsItem.properties), ['id', 'stars']);
    assert.equal(Object.keys(schemas.BooksAuthorItem.properties), ['id', 'name', 'profile', 'books']);
    assert.equal(schemas.BooksAuthorItem.properties.profile.anyOf, [
      { type: ['integer', 'null'], description: key },
      ref('BooksAuthorProfileItem'),
      { type: 'null' },
    ]);
    assert.equal(Object.keys(schemas.BooksAuthorBooksItem.properties), ['id', 'title', 'price']);
    assert.equal(Object.keys(schemas.BooksTagsItem.properties), ['id', 'label']);
    // A page per parent: the top level's shape; count only where the relation allows it.
    const reviewsPage = schemas.BooksReviewsPage;
    assert.equal(reviewsPage.required, ['items', 'page']);
    assert.equal(reviewsPage.properties.items.items, ref('BooksReviewsItem'));
    assert.equal(Object.keys(reviewsPage.properties.page.properties), [
      'limit',
      'offset',
      'hasMore',
      'nextCursor',
      'prevCursor',
      'count',
    ]);
    assert.match(reviewsPage.properties.page.properties.nextCursor.description, '`reviews.cursor`');
    assert.not.ok('count' in schemas.BooksTagsPage.properties.page.properties);
    assert.not.ok('estimatedCount' in reviewsPage.properties.page.properties);
  });

  test('each selectable to-many path has its list parameters, with the relation’s own bounds', ({ em }) => {
    const doc = toOpenAPI(createEngine(em, { policy, allowCount: true, maxOffset: 900 }).describe(), OPTIONS) as any;
    const parameters: any[] = doc.paths['/books'].get.parameters;
    const list = (path: string, count = false) =>
      ['filter', 'sort', 'limit', 'offset', 'cursor', ...(count ? ['count'] : [])].map((p) => `${path}.${p}`);
    assert.equal(
      parameters.map((p) => p.name),
      [
        ...['filter', 'sort', 'limit', 'offset', 'cursor', 'fields', 'count'],
        ...list('author.books'),
        ...list('reviews', true),
        ...list('tags'),
      ],
    );
    const byName = Object.fromEntries(parameters.map((p) => [p.name, p]));
    assert.equal(byName['reviews.limit'].schema, { type: 'integer', minimum: 0, maximum: 10, default: 3 });
    assert.equal(byName['tags.limit'].schema, { type: 'integer', minimum: 0, maximum: 50, default: 10 });
    assert.equal(byName['author.books.limit'].schema, { type: 'integer', minimum: 0, maximum: 5, default: 2 });
    assert.equal(byName['reviews.sort'].schema, { type: 'string', default: '-stars' });
    assert.equal(byName['tags.sort'].schema, { type: 'string' });
    assert.equal(byName['author.books.offset'].schema, { type: 'integer', minimum: 0, maximum: 900 });
    assert.equal(byName['reviews.count'].schema, { type: 'boolean' });
    assert.equal(byName['reviews.cursor'].schema, { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: 4096 });
    assert.equal(byName['reviews.filter'].schema, { type: 'string', maxLength: 8192 });
    // Each level's help names its own policy: the reviews' operators and keys, not the books'.
    assert.match(
      byName['reviews.filter'].description,
      'Filterable: stars: eq, ne, gt, gte, lt, lte, in, not in, is null.',
    );
    assert.match(byName['reviews.sort'].description, 'Sortable: stars. Without it: -stars, then the primary key.');
    assert.match(byName['author.books.sort'].description, 'Sortable: title, price.');
    assert.match(
      byName['author.books.limit'].description,
      'Applies when `fields` selects `books(…)` at `author.books`.',
    );
    assert.match(byName['reviews.cursor'].description, "continues that parent's list");
    for (const p of parameters) assert.is(p.in, 'query', p.name);
  });

  test('fields: its description names each level, its pattern the nested grammar as deep as the policy', ({ em }) => {
    const fields = (description: EngineDescription) =>
      (toOpenAPI(description, OPTIONS) as any).paths['/books'].get.parameters.find((p: any) => p.name === 'fields');
    const nested = fields(createEngine(em, { policy }).describe());
    assert.match(nested.description, 'Selectable: `id`, `title`, `price`, `author`, `publisher`.');
    assert.match(nested.description, '`author`: `id`, `name`, `profile`, `profile(…)`, `books(…)`');
    assert.match(nested.description, '`author.books`: `id`, `title`, `price`');
    assert.match(nested.description, '`reviews`: `id`, `stars`');
    const pattern = new RegExp(nested.schema.pattern);
    for (const accepted of [
      'id,title',
      ' title , author( name , profile(bio) ) ',
      'author(books(title,price))',
      'best:reviews(stars),worst : reviews ( id )',
      'tags(label)\t,\ttitle',
    ])
      assert.ok(pattern.test(accepted), accepted);
    for (const refused of [
      'best:reviews',
      'author()',
      'title,',
      'author(name',
      'author(books(reviews(stars)))',
      'author/name',
      '-title',
    ])
      assert.not.ok(pattern.test(refused), refused);
    // A policy without selectable relations keeps the flat pattern of names.
    const flat = fields(createEngine(em, { policy: schema(Book).expose('id').expose('title') }).describe());
    assert.is(
      flat.schema.pattern,
      '^[\\t\\n\\r ]*[A-Za-z_][A-Za-z0-9_]*([\\t\\n\\r ]*,[\\t\\n\\r ]*[A-Za-z_][A-Za-z0-9_]*)*[\\t\\n\\r ]*$',
    );
    assert.not.match(flat.description, 'parentheses');
  });

  test('a description whose depth limit is lower stops the schemas and parameters there', async ({ em }) => {
    const described = structuredClone(createEngine(em, { policy, allowCount: true }).describe()) as any;
    described.limits.maxSelectionDepth = 1;
    const doc = toOpenAPI(described, OPTIONS) as any;
    await assertValid(doc);
    const schemas = Object.keys(doc.components.schemas);
    assert.ok(schemas.includes('BooksAuthorItem'));
    assert.not.ok(schemas.some((name) => name.startsWith('BooksAuthorBooks') || name.startsWith('BooksAuthorProfile')));
    assert.equal(Object.keys(doc.components.schemas.BooksAuthorItem.properties), ['id', 'name', 'profile']);
    const names = doc.paths['/books'].get.parameters.map((p: any) => p.name);
    assert.not.ok(names.some((n: string) => n.startsWith('author.')));
    assert.ok(names.includes('reviews.limit'));
    assert.not.ok(new RegExp(doc.paths['/books'].get.parameters[5].schema.pattern).test('author(books(title))'));
  });

  test('a nested schema name taken by another endpoint is a TypeError', ({ em }) => {
    const books = createEngine(em, { policy });
    const reviews = createEngine(em, { policy: reviewFields });
    assert.throws(
      () =>
        toOpenAPI(
          [
            { path: '/books', engine: books },
            { path: '/books-reviews', engine: reviews },
          ],
          { title: 't', version: '1' },
        ),
      (err: unknown) => err instanceof TypeError && /BooksReviewsItem/.test(err.message),
    );
  });

  test('nested answers of list(), as the HTTP layer writes them, fit the 200 response schema', async ({ em }) => {
    const engine = createEngine(em, { policy, allowCount: true });
    const doc = toOpenAPI(engine.describe(), OPTIONS) as any;
    const response = doc.paths['/books'].get.responses['200'].content['application/json'].schema;
    const requests = [
      'fields=title,author(name,profile(bio),books(title,price)),reviews(stars),tags(label)&reviews.count=true&sort=id',
      'fields=best:reviews(stars),worst:reviews(id,stars)&worst.sort=stars&best.limit=1&worst.limit=1&sort=id',
      'fields=author&sort=id',
    ];
    const answers = [];
    for (const query of requests) {
      const answer = JSON.parse(
        stringifyJSON(await engine.from((em as SqlEntityManager).createQueryBuilder(Book, 'b')).list(query)),
      );
      assert.equal(misfits(doc, response, answer, '$', { best: 'reviews', worst: 'reviews' }), [], query);
      answers.push(answer);
    }
    // Not vacuous: the answers hold every kind of nested value the schema describes.
    const [tree, aliases, keys] = answers as any[];
    const alpha = tree.items.find((b: any) => b.id === 1);
    assert.equal(alpha.author.profile, { id: 1, bio: 'poet' });
    assert.ok(alpha.author.books.items.length > 0);
    assert.is(alpha.reviews.page.count, 2);
    assert.ok(alpha.tags.items.length === 2);
    assert.ok(tree.items.some((b: any) => b.author !== null && b.author.profile === null));
    assert.ok(aliases.items.some((b: any) => b.best.items.length === 1 && b.worst.items.length === 1));
    assert.is(typeof keys.items[0].author, 'number');
  });
});
