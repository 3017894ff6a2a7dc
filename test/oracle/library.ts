/**
 * The library endpoint for the property tests (books at the root, every association kind below): one declaration
 * gives both the policy the library binds and the reference's own description, plus a seeded generator of the
 * whole object graph (many NULLs, repeated values, empty and large collections, soft-deleted rows, two tenants).
 */
import type { EntityManager } from '@mikro-orm/core';
import { filterable, type Policy, type RelationSelectOptions, schema, sortable } from '../../src/policy/index.ts';
import { Author, Book, Category, Country, Profile, Publisher, Review, Tag } from '../fixtures/library.ts';
import { field } from './catalog.ts';
import type { EntitySpec, FieldSpec, RelationSpec, Row, SelectSpec, Visibility } from './model.ts';
import { createRandom, type Random } from './random.ts';

interface Decl {
  readonly entity: object;
  readonly name: string;
  readonly pk: readonly string[];
  readonly tenant?: boolean;
  readonly pathFilter?: EntitySpec['pathFilter'];
  readonly fields: readonly FieldSpec[];
  readonly relations: readonly (readonly [
    name: string,
    cardinality: 'one' | 'many',
    target: Decl,
    options?: RelationDecl,
  ])[];
}

/**
 * How the tree policy (bookTreePolicy) lets clients select a relation's objects: every relation is selectable, a
 * to-many one with these list options; `holdsKey`: a to-one whose single-column key the row holds (m:1, owning 1:1).
 */
interface RelationDecl {
  readonly select?: RelationSelectOptions;
  readonly holdsKey?: boolean;
  /** Only in the tree policy and bookTreeSpec (the other suites' policy and generated requests stay as they were). */
  readonly treeOnly?: boolean;
}

const country: Decl = {
  entity: Country,
  name: 'Country',
  pk: ['code'],
  fields: [field('code', 'string', false), field('name', 'string', false)],
  relations: [],
};
const bookTiny: Decl = {
  entity: Book,
  name: 'Book',
  pk: ['id'],
  tenant: true,
  fields: [field('title', 'string', false), field('price', 'integer', true)],
  relations: [],
};
const publisher: Decl = {
  entity: Publisher,
  name: 'Publisher',
  pk: ['tenant', 'id'],
  tenant: true,
  fields: [field('id', 'integer', false), field('name', 'string', false)],
  relations: [
    ['country', 'one', country, { holdsKey: true }],
    // A list under a composite-key parent (Book's FK is publisher_tenant, publisher_id).
    [
      'books',
      'many',
      bookTiny,
      { treeOnly: true, select: { maxLimit: 10, defaultLimit: 3, defaultSort: 'title', allowCount: true } },
    ],
  ],
};
const authorTiny: Decl = {
  entity: Author,
  name: 'Author',
  pk: ['id'],
  tenant: true,
  fields: [field('name', 'string', false)],
  relations: [],
};
const profile: Decl = {
  entity: Profile,
  name: 'Profile',
  pk: ['id'],
  fields: [field('id', 'integer', false), field('bio', 'string', true)],
  relations: [['author', 'one', authorTiny]],
};
/**
 * The `pricedBook` filter of test/fixtures/library.ts, `{ book: { price: { $gt: 0 } } }`, as em.find applies it:
 * the review's book must exist under the book's own soft-delete and tenant filters (they sit in the join) and cost
 * more than 0 (NULL does not).
 */
function pricedBook(row: Row, scope: Visibility): boolean {
  const book = row['book'] as Row | null | undefined;
  if (!book) return false;
  if (scope.softDelete && book['deletedAt'] != null) return false;
  if (scope.tenant !== undefined && book['tenant'] !== scope.tenant) return false;
  return typeof book['price'] === 'number' && book['price'] > 0;
}

const review: Decl = {
  entity: Review,
  name: 'Review',
  pk: ['id'],
  tenant: true,
  pathFilter: pricedBook,
  fields: [field('id', 'integer', false), field('stars', 'integer', true)],
  relations: [['book', 'one', bookTiny, { holdsKey: true, treeOnly: true }]],
};
const tag: Decl = {
  entity: Tag,
  name: 'Tag',
  pk: ['id'],
  fields: [field('label', 'string', false)],
  relations: [['books', 'many', bookTiny, { select: { maxLimit: 15, defaultLimit: 2, defaultSort: '-price,title' } }]],
};
const bookOfAuthor: Decl = {
  entity: Book,
  name: 'Book',
  pk: ['id'],
  tenant: true,
  fields: [field('id', 'integer', false), field('title', 'string', false), field('price', 'integer', true)],
  relations: [
    ['reviews', 'many', review, { select: { maxLimit: 5, defaultLimit: 2, allowCount: true } }],
    ['tags', 'many', tag, { select: { allowCount: true } }],
    ['publisher', 'one', publisher],
  ],
};
const author: Decl = {
  entity: Author,
  name: 'Author',
  pk: ['id'],
  tenant: true,
  fields: [field('id', 'integer', false), field('name', 'string', false)],
  relations: [
    ['profile', 'one', profile, { holdsKey: true }],
    ['books', 'many', bookOfAuthor, { select: { maxLimit: 20, defaultSort: 'title' } }],
  ],
};
const categoryLeaf: Decl = {
  entity: Category,
  name: 'Category',
  pk: ['id'],
  fields: [field('name', 'string', false)],
  relations: [],
};
const category: Decl = {
  entity: Category,
  name: 'Category',
  pk: ['id'],
  fields: [field('id', 'integer', false), field('name', 'string', false)],
  relations: [
    ['parent', 'one', categoryLeaf, { holdsKey: true }],
    ['children', 'many', categoryLeaf, { select: {} }],
  ],
};
const book: Decl = {
  entity: Book,
  name: 'Book',
  pk: ['id'],
  tenant: true,
  fields: [field('id', 'integer', false), field('title', 'string', false), field('price', 'integer', true)],
  relations: [
    ['author', 'one', author, { holdsKey: true }],
    ['publisher', 'one', publisher],
    ['category', 'one', category, { holdsKey: true }],
    ['reviews', 'many', review, { select: { maxLimit: 30, defaultLimit: 4, defaultSort: '-stars', allowCount: true } }],
    ['tags', 'many', tag, { select: { maxLimit: 10, defaultLimit: 3, allowCount: true } }],
  ],
};

/** A to-many relation's list options with the policy's defaults filled in (docs/policy.md), for the reference. */
function selectSpecOf(select: RelationSelectOptions = {}): SelectSpec {
  const maxLimit = select.maxLimit ?? 50;
  return {
    maxLimit,
    defaultLimit: select.defaultLimit ?? Math.min(10, maxLimit),
    defaultSort: (select.defaultSort ?? '')
      .split(',')
      .filter((t) => t !== '')
      .map((t) => (t.startsWith('-') ? ([t.slice(1), 'desc'] as const) : ([t, 'asc'] as const))),
    allowCount: select.allowCount === true,
  };
}

const specs = { plain: new WeakMap<Decl, EntitySpec>(), tree: new WeakMap<Decl, EntitySpec>() };

/**
 * The reference's description of a declaration (one object per declaration, so nested specs compare by identity);
 * `tree`: with the relations only the tree policy has.
 */
function specOf(decl: Decl, tree = false): EntitySpec {
  const cache = tree ? specs.tree : specs.plain;
  const known = cache.get(decl);
  if (known) return known;
  const declared = decl.relations.filter(([, , , options]) => tree || !options?.treeOnly);
  const relations: RelationSpec[] = declared.map(([name, cardinality, target, options]) => ({
    name,
    property: name,
    cardinality,
    target: () => specOf(target, tree),
    ...(cardinality === 'one' ? { nullCheck: true } : {}),
    select: cardinality === 'one' ? selectSpecOf({ maxLimit: 1, defaultLimit: 1 }) : selectSpecOf(options?.select),
    ...(options?.holdsKey ? { holdsKey: true } : {}),
    ...(cardinality === 'many' ? { aggregated: aggregatedOf(target) } : {}),
  }));
  const spec: EntitySpec = {
    name: decl.name,
    pk: decl.pk,
    fields: decl.fields,
    relations,
    softDelete: true,
    tenant: decl.tenant === true,
    ...(decl.pathFilter ? { pathFilter: decl.pathFilter } : {}),
  };
  cache.set(decl, spec);
  return spec;
}

/**
 * The fields of a to-many relation's target that its aggregates may reduce: the integer ones (exact sums on every
 * dialect; averages of up to a few dozen integers differ by far more than MariaDB's 4 extra digits, or not at all).
 */
function aggregatedOf(target: Decl): string[] {
  return target.fields.filter((f) => f.kind === 'integer').map((f) => f.name);
}

/** The policy of a declaration; with `selectable`, every relation's objects may be selected (`select`). */
function policyOf(decl: Decl, selectable = false): Policy {
  let policy = schema(decl.entity as typeof Book) as unknown as Policy;
  for (const f of decl.fields)
    policy = policy.expose(f.name as never, filterable(), sortable({ caseInsensitive: f.kind === 'string' }));
  // Every to-one relation allows `<name> is null` (the reference models it: see evaluate.ts).
  for (const [name, cardinality, target, options] of decl.relations) {
    if (options?.treeOnly && !selectable) continue;
    const select = selectable ? { select: cardinality === 'one' ? true : (options?.select ?? {}) } : {};
    // Every to-many relation allows `<name>/count()`, and sum, avg, min and max of its target's integer fields (the
    // reference computes them: see evaluate.ts).
    const fields = aggregatedOf(target);
    const aggregates = { count: true, sum: fields, avg: fields, min: fields, max: fields };
    policy = policy.relation(name, policyOf(target, selectable), {
      ...(cardinality === 'one' ? { nullCheck: true } : { aggregates }),
      ...select,
    });
  }
  return policy;
}

export const bookSpec: EntitySpec = specOf(book);
export const bookPolicy: Policy = policyOf(book);
/**
 * The same endpoint with every relation selectable at every level (fields=author(name),reviews(stars)…), plus two
 * relations only it has (Publisher.books, a list under a composite-key parent, and Review.book): the list options
 * of each to-many relation are those of the declarations above (bookTreeSpec's `select`). Its selectable relations
 * nest four deep (author → books → tags → books), so an engine for it needs `maxSelectionDepth: 4`.
 */
export const bookTreePolicy: Policy = policyOf(book, true);
/** The reference's description of bookTreePolicy: bookSpec with the relations only the tree policy has. */
export const bookTreeSpec: EntitySpec = specOf(book, true);

/** The generated object graph: every row of every entity, related rows linked both ways. */
export interface Library {
  readonly countries: Row[];
  readonly publishers: Row[];
  readonly profiles: Row[];
  readonly authors: Row[];
  readonly categories: Row[];
  readonly tags: Row[];
  readonly books: Row[];
  readonly reviews: Row[];
}

/** Case, accent and trailing-space twins (equal under MariaDB's default collation, distinct elsewhere) and traps. */
const NAMES = ['Ann', 'ann', 'Bob', 'Ü', '%', '_x', "O'Neil", 'a\\b', '', 'Zed', 'Bob', 'Ann', 'ANN ', 'u', ' '];
const PRICES = [null, null, 0, 1, -1, 5, 10, 10, 2147483647, 7];
const STARS = [null, 1, 2, 3, 4, 5, 5];

function meta(random: Random, tenantOf?: number): Row {
  return {
    deletedAt: random.chance(0.15) ? 1577836800000 : null,
    ...(tenantOf === undefined ? {} : { tenant: random.chance(0.1) ? 3 - tenantOf : tenantOf }),
  };
}

function many(key: string, owner: Row, child: Row): void {
  const list = (owner[key] ?? []) as Row[];
  owner[key] = [...list, child];
}

/** Generate a library from a seed: `books` books and everything they point at. */
export function generateLibrary(seed: number, books = 120): Library {
  const random = createRandom(seed);
  const name = (): string => random.pick(NAMES);
  const countries: Row[] = ['US', 'FR', 'DE', 'é'].map((code) => ({ code, name: name(), ...meta(random) }));
  const publishers: Row[] = [];
  for (const tenant of [1, 2])
    for (let id = 1; id <= 4; id++)
      publishers.push({
        tenant,
        id,
        name: name(),
        country: random.chance(0.8) ? random.pick(countries) : null,
        deletedAt: random.chance(0.15) ? 1577836800000 : null,
        books: [],
      });
  const profiles: Row[] = Array.from({ length: 14 }, (_, i) => ({
    id: i + 1,
    bio: random.chance(0.3) ? null : name(),
    ...meta(random),
  }));
  const freeProfiles = [...profiles];
  const authors: Row[] = Array.from({ length: 18 }, (_, i) => {
    const tenant = random.chance(0.5) ? 1 : 2;
    const p =
      random.chance(0.6) && freeProfiles.length
        ? freeProfiles.splice(random.int(0, freeProfiles.length - 1), 1)[0]!
        : null;
    const row: Row = {
      id: i + 1,
      tenant,
      name: name(),
      profile: p,
      deletedAt: random.chance(0.15) ? 1577836800000 : null,
      books: [],
    };
    if (p) p['author'] = row;
    return row;
  });
  const categories: Row[] = [];
  for (let id = 1; id <= 10; id++) {
    const parent = id > 1 && random.chance(0.8) ? random.pick(categories) : null;
    const row: Row = { id, name: name(), parent, children: [], ...meta(random) };
    if (parent) many('children', parent, row);
    categories.push(row);
  }
  const tags: Row[] = ['red', 'blue', 'Red', 'green', '%', ''].map((label, i) => ({
    id: i + 1,
    label,
    books: [],
    ...meta(random),
  }));
  const bookRows: Row[] = [];
  const reviews: Row[] = [];
  for (let id = 1; id <= books; id++) {
    const a = random.pick(authors);
    const tenant = random.chance(0.9) ? (a['tenant'] as number) : 3 - (a['tenant'] as number);
    const pub = random.chance(0.75) ? random.pick(publishers.filter((p) => p['tenant'] === tenant)) : null;
    const row: Row = {
      id,
      tenant,
      title: name(),
      price: random.pick(PRICES),
      author: a,
      publisher: pub,
      category: random.chance(0.7) ? random.pick(categories) : null,
      reviews: [],
      tags: [],
      deletedAt: random.chance(0.15) ? 1577836800000 : null,
    };
    many('books', a, row);
    if (pub) many('books', pub, row);
    for (const t of tags)
      if (random.chance(0.25)) {
        many('tags', row, t);
        many('books', t, row);
      }
    // Mostly small collections, sometimes a large one.
    const count = random.chance(0.05) ? random.int(15, 30) : random.int(0, 4);
    for (let i = 0; i < count; i++) {
      const r: Row = {
        id: reviews.length + 1,
        tenant: random.chance(0.9) ? tenant : 3 - tenant,
        book: row,
        stars: random.pick(STARS),
        ...meta(random),
      };
      reviews.push(r);
      many('reviews', row, r);
    }
    bookRows.push(row);
  }
  return { countries, publishers, profiles, authors, categories, tags, books: bookRows, reviews };
}

/** The library's rows of an entity, by the entity's name. */
export function rowsOf(lib: Library, entity: string): readonly Row[] {
  const table: Record<string, readonly Row[]> = {
    Country: lib.countries,
    Publisher: lib.publishers,
    Profile: lib.profiles,
    Author: lib.authors,
    Category: lib.categories,
    Tag: lib.tags,
    Book: lib.books,
    Review: lib.reviews,
  };
  const rows = table[entity];
  if (!rows) throw new Error(`oracle: the library has no ${entity}`);
  return rows;
}

/** The row an item of `entity` stands for, found by its primary-key values; undefined when there is none. */
export function rowOfItem(lib: Library, entity: EntitySpec, item: Record<string, unknown>): Row | undefined {
  return rowsOf(lib, entity.name).find((row) => entity.pk.every((k) => row[k] === item[k]));
}

const date = (ms: unknown): Date | null => (ms == null ? null : new Date(ms as number));

/** Insert a generated library through MikroORM, in dependency order. */
export async function loadLibrary(em: EntityManager, lib: Library): Promise<void> {
  const made = new Map<Row, object>();
  const ref = (row: unknown): object | null => (row ? made.get(row as Row)! : null);
  for (const c of lib.countries)
    made.set(
      c,
      em.create(Country, { code: c['code'] as string, name: c['name'] as string, deletedAt: date(c['deletedAt']) }),
    );
  for (const p of lib.publishers)
    made.set(
      p,
      em.create(Publisher, {
        tenant: p['tenant'] as number,
        id: p['id'] as number,
        name: p['name'] as string,
        country: ref(p['country']) as Country | null,
        deletedAt: date(p['deletedAt']),
      }),
    );
  for (const p of lib.profiles)
    made.set(
      p,
      em.create(Profile, { id: p['id'] as number, bio: p['bio'] as string | null, deletedAt: date(p['deletedAt']) }),
    );
  for (const a of lib.authors)
    made.set(
      a,
      em.create(Author, {
        id: a['id'] as number,
        tenant: a['tenant'] as number,
        name: a['name'] as string,
        profile: ref(a['profile']) as Profile | null,
        deletedAt: date(a['deletedAt']),
      }),
    );
  for (const c of lib.categories)
    made.set(
      c,
      em.create(Category, {
        id: c['id'] as number,
        name: c['name'] as string,
        parent: ref(c['parent']) as Category | null,
        deletedAt: date(c['deletedAt']),
      }),
    );
  for (const t of lib.tags)
    made.set(
      t,
      em.create(Tag, { id: t['id'] as number, label: t['label'] as string, deletedAt: date(t['deletedAt']) }),
    );
  for (const b of lib.books) {
    const entity = em.create(Book, {
      id: b['id'] as number,
      tenant: b['tenant'] as number,
      title: b['title'] as string,
      price: b['price'] as number | null,
      author: ref(b['author']) as Author,
      publisher: ref(b['publisher']) as Publisher | null,
      category: ref(b['category']) as Category | null,
      deletedAt: date(b['deletedAt']),
    });
    for (const t of b['tags'] as Row[]) entity.tags?.add(ref(t) as Tag);
    made.set(b, entity);
  }
  for (const r of lib.reviews)
    em.create(Review, {
      id: r['id'] as number,
      tenant: r['tenant'] as number,
      book: ref(r['book']) as Book,
      stars: r['stars'] as number | null,
      deletedAt: date(r['deletedAt']),
    });
  await em.flush();
  em.clear();
}
