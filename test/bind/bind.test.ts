/**
 * policy.bind(orm): every refusal is `invalid_schema` naming Entity.property; accepted policies resolve public
 * names, kinds, default operators, relations and primary keys from MikroORM metadata, on SQLite and PostgreSQL.
 */
import type { EntityMetadata, EntityProperty } from '@mikro-orm/core';
import * as assert from 'uvu/assert';
import type { BoundSchema, Operator } from '../../src/bind/types.ts';
import { isListError } from '../../src/errors.ts';
import { bindRelationProperty } from '../../src/policy/bind-relation.ts';
import { filterable, type Policy, schema, sortable } from '../../src/policy/index.ts';
import { catalogEntities, Product, ProductSchema, Stock } from '../fixtures/catalog.ts';
import {
  Author,
  Book,
  BookDetail,
  Comment,
  Note,
  type NoteEntity,
  Profile,
  Publisher,
  Review,
  relationEntities,
  Sample,
  seedRelations,
  Tag,
} from '../fixtures/relations.ts';
import { eachDialect } from '../helpers/db.ts';

const authorP = schema(Author).expose('name', filterable());
const publisherP = schema(Publisher).expose('name', filterable());

// Cycles through thunks: Book → Author → Book (same objects), and a policy that contains itself.
const cyclicBook: Policy<Book> = schema(Book).relation('author', () => cyclicAuthor);
const cyclicAuthor: Policy<Author> = schema(Author).relation('books', () => cyclicBook);
const selfMentor: Policy<Author> = schema(Author).relation('mentor', () => selfMentor);
class NotAnEntity {
  id!: number;
}

interface RefusalRow {
  readonly name: string;
  readonly policy: () => Policy;
  /** Text the message must contain: the Entity.property at fault, and the reason. */
  readonly says: readonly string[];
}

const REFUSALS: readonly RefusalRow[] = [
  { name: 'hidden property', policy: () => schema(Product).expose('secret'), says: ['Product.secret', 'hidden'] },
  {
    name: 'reserved public name',
    policy: () => schema(Sample).expose('desc'),
    says: ['Sample.direction', "'desc'", 'reserved'],
  },
  {
    name: 'public name not an identifier',
    policy: () => schema(Sample).expose('dashed-name'),
    says: ['Sample.dashed', 'identifier'],
  },
  // @ts-expect-error the types refuse it too; this checks the run-time guard
  { name: 'unknown property', policy: () => schema(Product).expose('nope'), says: ['Product.nope', 'does not exist'] },
  {
    name: 'property name of a serialized field',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Product).expose('sku'),
    says: ['Product.sku', "serialized as 'code'"],
  },
  {
    name: 'duplicate field',
    policy: () => schema(Product).expose('name').expose('name', sortable()),
    says: ['Product.name', 'twice'],
  },
  {
    name: 'field and relation share a name',
    policy: () => schema(Book).expose('title').relation('title', authorP, { property: 'author' }),
    says: ['Book.title', 'twice'],
  },
  {
    name: 'relation exposed as a field',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Book).expose('author'),
    says: ['Book.author', 'relation()'],
  },
  {
    name: 'to-many relation exposed as a field',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Author).expose('books'),
    says: ['Author.books', 'relation()'],
  },
  { name: 'json property', policy: () => schema(Author).expose('settings'), says: ['Author.settings', 'JsonType'] },
  {
    name: 'blob property',
    policy: () => schema(Sample).expose('blob'),
    says: ['Sample.blob', 'cannot filter or sort'],
  },
  {
    name: 'array property',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Sample).expose('labels'),
    says: ['Sample.labels', 'cannot filter or sort'],
  },
  { name: 'time property', policy: () => schema(Sample).expose('at'), says: ['Sample.at', 'cannot filter or sort'] },
  {
    name: 'ordering on boolean',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Product).expose('active', filterable('gt')),
    says: ['Product.active', "'gt'", 'boolean'],
  },
  {
    name: 'ordering on uuid',
    policy: () => schema(Product).expose('uuid', filterable('lte')),
    says: ['Product.uuid', "'lte'"],
  },
  {
    name: 'ordering on enum',
    policy: () => schema(Product).expose('status', filterable('gte')),
    says: ['Product.status', "'gte'"],
  },
  {
    name: 'contains on integer',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Product).expose('stock', filterable('contains')),
    says: ['Product.stock', "'contains'"],
  },
  {
    name: 'startswith on enum',
    policy: () => schema(Product).expose('status', filterable('startswith')),
    says: ['Product.status', "'startswith'"],
  },
  {
    name: 'endswith on datetime',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Product).expose('createdAt', filterable('endswith')),
    says: ['Product.createdAt', "'endswith'"],
  },
  {
    name: 'null on a NOT NULL column',
    policy: () => schema(Product).expose('name', filterable('eq', 'null')),
    says: ['Product.name', "'null'", 'not nullable'],
  },
  {
    name: 'unknown operator',
    policy: () => schema(Product).expose('name', filterable('like' as Operator)),
    says: ['Product.name', "'like'"],
  },
  {
    name: 'relation missing',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Book).relation('editor', authorP),
    says: ['Book.editor', 'does not exist'],
  },
  {
    name: 'override to a missing property',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Book).relation('writer', authorP, { property: 'ghost' }),
    says: ['Book.ghost', 'does not exist'],
  },
  {
    name: 'relation on a scalar',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Book).relation('title', authorP),
    says: ['Book.title', 'not a relation'],
  },
  {
    name: 'override to a scalar',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Book).relation('head', authorP, { property: 'price' }),
    says: ['Book.price', 'not a relation'],
  },
  {
    name: 'relation to the wrong entity',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Book).relation('author', publisherP),
    says: ['Book.author', 'targets Author', 'Publisher'],
  },
  {
    name: 'override to the wrong entity',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Book).relation('writer', publisherP, { property: 'reviews' }),
    says: ['Book.reviews', 'targets Review'],
  },
  {
    name: 'polymorphic association',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Comment).relation('subject', authorP),
    says: ['Comment.subject', 'polymorphic'],
  },
  {
    name: 'reserved relation name',
    policy: () => schema(Book).relation('any', authorP, { property: 'author' }),
    says: ['Book.author', "'any'", 'reserved'],
  },
  {
    name: 'hidden relation name via override',
    // @ts-expect-error the types refuse it too; this checks the run-time guard
    policy: () => schema(Author).relation('secretive', publisherP, { property: 'secret' }),
    says: ['Author.secret', 'hidden'],
  },
  {
    name: 'policy cycle through thunks',
    policy: () => cyclicBook,
    says: ['Author.books', 'Book.author → Author.books → Book', 'cycle'],
  },
  {
    name: 'policy containing itself',
    policy: () => selfMentor,
    says: ['Author.mentor', 'Author.mentor → Author', 'cycle'],
  },
  {
    name: 'thunk returning a non-policy',
    policy: () => schema(Book).relation('author', (() => 42) as never),
    says: ['Book.author', 'not a policy'],
  },
  { name: 'unknown entity', policy: () => schema(NotAnEntity).expose('id'), says: ['NotAnEntity', 'not registered'] },
  {
    name: 'error in a nested policy',
    policy: () => schema(Book).relation('author', schema(Author).expose('secret')),
    says: ['Author.secret', 'hidden'],
  },
];

/** Metadata whose relation `name` lacks what the planner needs, to reach the incomplete-metadata checks. */
function broken(meta: EntityMetadata, name: string, patch: Partial<EntityProperty>): EntityMetadata {
  const prop = { ...meta.properties[name], ...patch } as EntityProperty;
  const properties = { ...meta.properties, [name]: prop };
  return { className: meta.className, props: meta.props.map((p) => (p.name === name ? prop : p)), properties } as never;
}

const INCOMPLETE: readonly { name: string; entity: string; prop: string; patch: Partial<EntityProperty> }[] = [
  { name: 'm:1 without join columns', entity: 'Book', prop: 'author', patch: { joinColumns: [] } },
  { name: 'no target metadata', entity: 'Book', prop: 'author', patch: { targetMeta: undefined } as never },
  { name: '1:m without mappedBy', entity: 'Author', prop: 'books', patch: { mappedBy: undefined } as never },
  {
    name: '1:m whose mappedBy is missing on the target',
    entity: 'Author',
    prop: 'books',
    patch: { mappedBy: 'ghost' } as never,
  },
  { name: 'm:n without pivot table', entity: 'Author', prop: 'tags', patch: { pivotTable: undefined } as never },
  { name: 'm:n without inverse join columns', entity: 'Tag', prop: 'authors', patch: { inverseJoinColumns: [] } },
  { name: '1:1 owner without join columns', entity: 'Author', prop: 'profile', patch: { joinColumns: [] } },
  {
    name: '1:1 inverse without an owning side',
    entity: 'Profile',
    prop: 'author',
    patch: { mappedBy: 'ghost' } as never,
  },
];

const ops = (b: BoundSchema, name: string) => [...(b.fields.get(name)?.operators ?? [])].sort();
const sorted = (list: readonly Operator[]) => [...list].sort();
const ORDERING: Operator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin'];

function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (isListError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected invalid_schema');
}

eachDialect(
  'policy.bind',
  { entities: [...catalogEntities, ...relationEntities], seed: seedRelations },
  (test, dialect) => {
    for (const row of REFUSALS) {
      test(`refuses: ${row.name}`, ({ db }) => {
        const err = refusal(() => row.policy().bind(db.orm));
        assert.is(err.code, 'invalid_schema');
        for (const text of row.says) assert.ok(err.message.includes(text), `"${err.message}" should say ${text}`);
      });
    }

    for (const row of INCOMPLETE) {
      test(`refuses incomplete metadata: ${row.name}`, ({ db }) => {
        const meta = db.orm.getMetadata().getByClassName(row.entity);
        const target = meta.properties[row.prop]?.targetMeta as EntityMetadata;
        const err = refusal(() =>
          bindRelationProperty(
            broken(meta, row.prop, row.patch),
            { kind: 'relation', publicName: row.prop, nested: authorP },
            target,
          ),
        );
        assert.is(err.code, 'invalid_schema');
        assert.ok(err.message.includes(`${row.entity}.${row.prop}`) && err.message.includes('incomplete'), err.message);
      });
    }

    test('public names: a serializedName is the public name; the column and property stay MikroORM’s', ({ db }) => {
      const b = schema(Product).expose('code', filterable()).expose('name').bind(db.orm);
      const code = b.fields.get('code');
      assert.equal([code?.property, code?.column, code?.kind], ['sku', 'sku', 'string']);
      assert.equal([...b.fields.keys()], ['code', 'name']);
      const note = schema<NoteEntity>(Note).expose('body').bind(db.orm);
      assert.equal([note.entityName, note.fields.get('body')?.property], ['Note', 'text']);
    });

    const KINDS: readonly [Policy, string, string, boolean][] = [
      [schema(Product), 'id', 'integer', false],
      [schema(Product), 'name', 'string', false],
      [schema(Product), 'description', 'string', true],
      [schema(Product), 'status', 'enum', false],
      [schema(Product), 'views', 'bigint', false],
      [schema(Product), 'price', 'decimal', true],
      [schema(Product), 'rating', 'float', true],
      [schema(Product), 'active', 'boolean', true],
      [schema(Product), 'releasedOn', 'date', true],
      [schema(Product), 'createdAt', 'datetime', false],
      [schema(Product), 'uuid', 'uuid', false],
      [schema(Sample), 'small', 'integer', false],
      [schema(Sample), 'tiny', 'integer', false],
      [schema(Sample), 'medium', 'integer', false],
      [schema(Sample), 'ratio', 'float', false],
      [schema(Sample), 'initials', 'string', false],
      [schema(Sample), 'level', 'enum', false],
      [schema(Sample), 'localAt', 'datetime', false],
    ];
    for (const [policy, name, kind, nullable] of KINDS) {
      test(`kind: ${name} is ${kind}${nullable ? ', nullable' : ''}`, ({ db }) => {
        const field = policy.expose(name).bind(db.orm).fields.get(name);
        assert.equal([field?.kind, field?.nullable], [kind, nullable]);
      });
    }

    const DEFAULTS: readonly [string, Operator[]][] = [
      ['name', [...ORDERING, 'contains', 'startswith', 'endswith']],
      ['description', [...ORDERING, 'contains', 'startswith', 'endswith', 'null']],
      ['id', ORDERING],
      ['views', ORDERING],
      ['price', [...ORDERING, 'null']],
      ['rating', [...ORDERING, 'null']],
      ['createdAt', ORDERING],
      ['releasedOn', [...ORDERING, 'null']],
      ['status', ['eq', 'ne', 'in', 'nin']],
      ['uuid', ['eq', 'ne', 'in', 'nin']],
      ['active', ['eq', 'ne', 'null']],
    ];
    for (const [name, expected] of DEFAULTS) {
      test(`filterable() defaults: ${name}`, ({ db }) => {
        const b = schema<any>(Product).expose(name, filterable()).bind(db.orm);
        assert.equal(ops(b, name), sorted(expected));
        assert.is(b.fields.get(name)?.filterable, true);
      });
    }

    test('capabilities: none by default, explicit operators only, options combine', ({ db }) => {
      const b = schema(Product)
        .expose('name')
        .expose('stock', filterable('eq', 'in'), sortable(), filterable('null'))
        .expose('code', sortable())
        .bind(db.orm);
      const name = b.fields.get('name');
      assert.equal([name?.filterable, name?.sortable, name?.operators.size], [false, false, 0]);
      assert.equal(ops(b, 'stock'), ['eq', 'in', 'null']);
      assert.equal(
        [b.fields.get('stock')?.sortable, b.fields.get('code')?.sortable, b.fields.get('code')?.filterable],
        [true, true, false],
      );
    });

    test('enum items and integer ranges come from metadata', ({ db }) => {
      const p = schema(Product).expose('status').expose('stock').expose('views').bind(db.orm);
      assert.equal(p.fields.get('status')?.enumItems, ['draft', 'active', 'retired']);
      assert.equal(p.fields.get('stock')?.range, { min: -(2n ** 31n), max: 2n ** 31n - 1n });
      assert.equal(p.fields.get('views')?.range, { min: -(2n ** 63n), max: 2n ** 63n - 1n });
      const s = schema(Sample).expose('tiny').expose('small').expose('medium').expose('level').bind(db.orm);
      assert.equal(s.fields.get('tiny')?.range, { min: -128n, max: 127n });
      assert.equal(s.fields.get('small')?.range, { min: -32768n, max: 32767n });
      assert.equal(s.fields.get('medium')?.range, { min: -(2n ** 23n), max: 2n ** 23n - 1n });
      assert.equal(s.fields.get('level')?.enumItems, [1, 2, 3]);
    });

    test('datetime fields record whether the column keeps a time zone', ({ db }) => {
      const p = schema(Product).expose('createdAt').bind(db.orm);
      const s = schema(Sample).expose('localAt').bind(db.orm);
      assert.equal(
        [p.fields.get('createdAt')?.timezone, s.fields.get('localAt')?.timezone],
        [dialect === 'postgresql', false],
      );
    });

    const KEYS: readonly [string, Policy, [string, string][]][] = [
      ['single', schema(Product), [['id', 'id']]],
      [
        'composite of scalars',
        schema(Stock),
        [
          ['warehouse', 'warehouse'],
          ['bin', 'bin'],
        ],
      ],
      [
        'composite with an m:1',
        schema(Review),
        [
          ['book', 'book_id'],
          ['reviewer', 'reviewer'],
        ],
      ],
      ['an m:1 relation', schema(BookDetail), [['book', 'book_id']]],
    ];
    for (const [name, policy, expected] of KEYS) {
      test(`primaryKey: ${name}`, ({ db }) => {
        assert.equal(
          policy.bind(db.orm).primaryKey.map((k) => [k.property, k.column]),
          expected,
        );
      });
    }

    const RELATIONS: readonly [string, () => Policy, string, string, 'one' | 'many'][] = [
      ['m:1 by property name', () => schema(Book).relation('author', authorP), 'author', 'author', 'one'],
      ['m:1 by serializedName', () => schema(Book).relation('writer', authorP), 'writer', 'coAuthor', 'one'],
      [
        'override (RelationGoField)',
        () => schema(Book).relation('coWriter', authorP, { property: 'coAuthor' }),
        'coWriter',
        'coAuthor',
        'one',
      ],
      ['1:m', () => schema(Author).relation('books', schema(Book).expose('title')), 'books', 'books', 'many'],
      ['m:n owner', () => schema(Author).relation('tags', schema(Tag).expose('label')), 'tags', 'tags', 'many'],
      ['m:n inverse', () => schema(Tag).relation('authors', authorP), 'authors', 'authors', 'many'],
      [
        '1:1 owner',
        () => schema(Author).relation('profile', schema(Profile).expose('bio')),
        'profile',
        'profile',
        'one',
      ],
      ['1:1 inverse', () => schema(Profile).relation('author', authorP), 'author', 'author', 'one'],
      [
        'self-reference with distinct policies',
        () => schema(Author).relation('mentor', authorP),
        'mentor',
        'mentor',
        'one',
      ],
      [
        'm:1 inside a composite key',
        () => schema(Review).relation('book', schema(Book).expose('title')),
        'book',
        'book',
        'one',
      ],
    ];
    for (const [name, policy, publicName, property, cardinality] of RELATIONS) {
      test(`relation: ${name}`, ({ db }) => {
        const rel = policy().bind(db.orm).relations.get(publicName);
        assert.equal([rel?.property, rel?.cardinality, rel?.prop.name], [property, cardinality, property]);
        assert.is(rel?.target.entityName, rel?.prop.targetMeta?.className);
      });
    }

    test('thunks resolve at bind time; the same nested policy binds once and is shared', ({ db }) => {
      let calls = 0;
      const book = schema(Book)
        .relation('author', () => {
          calls++;
          return authorP;
        })
        .relation('writer', authorP);
      assert.is(calls, 0);
      const b = book.bind(db.orm);
      assert.is(calls, 1);
      assert.is(b.relations.get('author')?.target, b.relations.get('writer')?.target);
      assert.is(b.relations.get('author')?.target, authorP.bind(db.orm));
    });

    test('bind caches per policy and metadata, for an ORM and its EntityManagers alike', ({ db, em }) => {
      const p = schema(ProductSchema).expose('name');
      const first = p.bind(db.orm);
      assert.is(p.bind(em), first);
      assert.is(first.platform, em.getPlatform());
      assert.is.not(p.expose('code').bind(db.orm), first);
      assert.is(first.meta, db.orm.getMetadata().find(Product));
    });
  },
);
