/**
 * resolveQuery: paths, capabilities, literal checking and conversion to database values, on SQLite and PostgreSQL.
 * AST nodes come from a tiny local builder that lays them out as the text a client would write, so every span is
 * distinct and an expected error position is just the offset of a token in that text.
 */
import * as assert from 'uvu/assert';
import { resolveQuery } from '../../src/bind/index.ts';
import type { FieldRef, ResolvedFilter, ResolvedQuery } from '../../src/bind/types.ts';
import { isListError } from '../../src/errors.ts';
import { filterable, schema, sortable } from '../../src/policy/index.ts';
import type { FilterNode, Ident, Literal, ParsedQuery, Path, SortTerm, Span } from '../../src/syntax/ast.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { catalogEntities, Product } from '../fixtures/catalog.ts';
import { Author, Book, Publisher, Review, relationEntities, Sample, Tag } from '../fixtures/relations.ts';
import { type Dialect, type DialectContext, eachDialect } from '../helpers/db.ts';

// ---- a tiny AST builder: one line, ASCII, so column = offset + 1 ----

const span = (start: number, end: number): Span => ({ offset: start, line: 1, column: start + 1, end });

interface Piece {
  readonly text: string;
  at(base: number): FilterNode;
}

function path(text: string, base: number): Path {
  let offset = base;
  const segments: Ident[] = text.split('/').map((name) => {
    const ident = { name, span: span(offset, offset + name.length) };
    offset += name.length + 1;
    return ident;
  });
  return { segments, span: span(base, base + text.length) };
}

function literal(text: string, base: number): Literal {
  const s = span(base, base + text.length);
  if (text.startsWith("'")) return { kind: 'string', value: text.slice(1, -1).replaceAll("''", "'"), span: s };
  if (text === 'true' || text === 'false') return { kind: 'boolean', value: text === 'true', span: s };
  return { kind: 'number', text, span: s };
}

const VALUE_OP = /^(\S+) (eq|ne|gt|gte|lt|lte|contains|startswith|endswith) (.+)$/;
const SET_OP = /^(\S+) (not in|in) \((.*)\)$/;
const NULL_OP = /^(\S+) (is (not )?null)$/;

/** A comparison, membership or null check written as text: `price gt 5`, `id in (1, 2)`, `x is not null`. */
function cmp(text: string): Piece {
  return {
    text,
    at(base) {
      const whole = span(base, base + text.length);
      let m = NULL_OP.exec(text);
      if (m) {
        const [, p = '', op = ''] = m;
        const opAt = base + p.length + 1;
        return {
          kind: 'nullCheck',
          path: path(p, base),
          negated: op.includes('not'),
          operatorSpan: span(opAt, opAt + op.length),
          span: whole,
        };
      }
      m = SET_OP.exec(text);
      if (m) {
        const [, p = '', op = '', list = ''] = m;
        const opAt = base + p.length + 1;
        let offset = opAt + op.length + 2;
        const values = list.split(', ').map((item) => {
          const lit = literal(item, offset);
          offset += item.length + 2;
          return lit;
        });
        return {
          kind: 'membership',
          path: path(p, base),
          negated: op === 'not in',
          operatorSpan: span(opAt, opAt + op.length),
          values,
          span: whole,
        };
      }
      m = VALUE_OP.exec(text);
      if (!m) throw new Error(`test builder cannot read: ${text}`);
      const [, p = '', op = '', value = ''] = m;
      const opAt = base + p.length + 1;
      return {
        kind: 'comparison',
        path: path(p, base),
        operator: op as 'eq',
        operatorSpan: span(opAt, opAt + op.length),
        value: literal(value, opAt + op.length + 1),
        span: whole,
      };
    },
  };
}

function binary(kind: 'and' | 'or', l: Piece | string, r: Piece | string): Piece {
  const left = typeof l === 'string' ? cmp(l) : l;
  const right = typeof r === 'string' ? cmp(r) : r;
  const text = `${left.text} ${kind} ${right.text}`;
  return {
    text,
    at: (base) => ({
      kind,
      left: left.at(base),
      right: right.at(base + left.text.length + kind.length + 2),
      span: span(base, base + text.length),
    }),
  };
}
const and = (l: Piece | string, r: Piece | string) => binary('and', l, r);
const or = (l: Piece | string, r: Piece | string) => binary('or', l, r);
function not(x: Piece | string): Piece {
  const inner = typeof x === 'string' ? cmp(x) : x;
  const text = `not ${inner.text}`;
  return { text, at: (base) => ({ kind: 'not', operand: inner.at(base + 4), span: span(base, base + text.length) }) };
}
/** `<relPath>/<quantifier>(<variable>: <predicate>)`. */
function quant(relPath: string, quantifier: 'any' | 'all', variable: string, pred: Piece | string): Piece {
  const inner = typeof pred === 'string' ? cmp(pred) : pred;
  const text = `${relPath}/${quantifier}(${variable}: ${inner.text})`;
  return {
    text,
    at(base) {
      const varAt = base + relPath.length + quantifier.length + 2;
      return {
        kind: 'quantifier',
        quantifier,
        path: path(relPath, base),
        variable: { name: variable, span: span(varAt, varAt + variable.length) },
        predicate: inner.at(varAt + variable.length + 2),
        span: span(base, base + text.length),
      };
    },
  };
}
const any = (p: string, v: string, pred: Piece | string) => quant(p, 'any', v, pred);
const all = (p: string, v: string, pred: Piece | string) => quant(p, 'all', v, pred);

/** `sort` as written: `-price,author/name`. */
function sortTerms(text: string): SortTerm[] {
  let offset = 0;
  return text.split(',').map((raw) => {
    const desc = raw.startsWith('-');
    const p = path(desc ? raw.slice(1) : raw, offset + (desc ? 1 : 0));
    const term: SortTerm = { path: p, direction: desc ? 'desc' : 'asc', span: span(offset, offset + raw.length) };
    offset += raw.length + 1;
    return term;
  });
}

const filterOf = (x: Piece | string): FilterNode => (typeof x === 'string' ? cmp(x) : x).at(0);

// ---- policies ----

const productPolicy = schema(Product)
  .expose('id', filterable(), sortable())
  .expose('name', filterable('eq', 'contains', 'in'), sortable())
  .expose('code', filterable())
  .expose('description')
  .expose('status', filterable())
  .expose('stock', filterable('eq', 'gt', 'in', 'null'), sortable())
  .expose('views', filterable())
  .expose('price', filterable())
  .expose('rating', filterable())
  .expose('active', filterable())
  .expose('releasedOn', filterable())
  .expose('createdAt', filterable(), sortable())
  .expose('uuid', filterable());

const samplePolicy = schema(Sample)
  .expose('small', filterable())
  .expose('tiny', filterable())
  .expose('medium', filterable())
  .expose('ratio', filterable())
  .expose('initials', filterable())
  .expose('level', filterable())
  .expose('localAt', filterable());

const publisherPolicy = schema(Publisher).expose('name', filterable(), sortable());
const tagPolicy = schema(Tag).expose('label', filterable());
const authorPolicy = schema(Author)
  .expose('id', sortable())
  .expose('name', filterable(), sortable())
  .expose('emailAddress', filterable())
  .relation('publisher', publisherPolicy)
  .relation('tags', tagPolicy);
const reviewPolicy = schema(Review).expose('stars', filterable()).expose('reviewer', filterable());
const bookPolicy = schema(Book)
  .expose('id', sortable())
  .expose('title', filterable(), sortable())
  .expose('price', filterable(), sortable())
  .relation('author', authorPolicy)
  .relation('writer', authorPolicy)
  .relation('reviews', reviewPolicy);
const authorRootPolicy = schema(Author)
  .expose('name', filterable(), sortable())
  .relation('books', bookPolicy)
  .relation('publisher', publisherPolicy);

const POLICIES = { product: productPolicy, sample: samplePolicy, book: bookPolicy, authorRoot: authorRootPolicy };
type PolicyName = keyof typeof POLICIES;

// ---- rows ----

interface ErrorRow {
  readonly name: string;
  readonly policy: PolicyName;
  readonly filter?: Piece | string;
  readonly sort?: string;
  readonly code: string;
  /** The token the position points at (its first occurrence in the parameter's text, from `after` on). */
  readonly at: string;
  readonly after?: number;
  readonly message?: string;
}

function suggestionRows(): ErrorRow[] {
  const field = (policy: PolicyName, text: string, at: string, meant?: string, sort = false): ErrorRow => ({
    name: `${sort ? 'sort' : 'filter'} ${text}: ${meant ? `suggests '${meant}'` : 'suggests nothing'}`,
    policy,
    ...(sort ? { sort: text } : { filter: text }),
    code: 'unknown_field',
    at,
    message: `unknown field '${at}'${meant ? `; did you mean '${meant}'?` : ''}`,
  });
  const relation = (filter: Piece | string, sort: string | undefined, at: string, meant?: string): ErrorRow => {
    const text = sort ?? (typeof filter === 'string' ? filter : filter.text);
    return {
      name: `${sort ? 'sort' : 'filter'} ${text}: ${meant ? `suggests '${meant}'` : 'suggests nothing'}`,
      policy: 'book',
      ...(sort ? { sort } : { filter }),
      code: 'invalid_relationship',
      at,
      message: `unknown relationship '${at}'${meant ? `; did you mean '${meant}'?` : ''}`,
    };
  };
  return [
    field('book', "titel eq 'x'", 'titel', 'title'),
    field('book', "Title eq 'x'", 'Title', 'title'),
    field('book', "author/nme eq 'x'", 'nme', 'name'),
    field('book', 'price,-prcie', 'prcie', 'price', true),
    field('product', 'stok', 'stok', 'stock', true),
    // Exposed but not sortable (views) or not filterable (description): not a name the client can use there.
    field('product', 'veiws', 'veiws', undefined, true),
    field('product', "descripton eq 'x'", 'descripton'),
    // Hidden: `secret` is never suggested, so a near miss reads exactly like any unknown name.
    field('product', "secrt eq 'x'", 'secrt'),
    field('book', "tilte eq 'x' or nope eq 1", 'tilte', 'title'),
    field('book', 'pr eq 1', 'pr'),
    // Two edits from 5 characters on, one for 3 or 4, none beyond.
    field('book', 'priceee eq 1', 'priceee', 'price'),
    field('book', 'pricexyz eq 1', 'pricexyz'),
    field('book', "tilt eq 'x'", 'tilt'),
    relation("autor/name eq 'x'", undefined, 'autor', 'author'),
    relation('reviewz/stars eq 1', undefined, 'reviewz', 'reviews'),
    // Sort paths and quantifiers take only to-one and only to-many relations respectively.
    relation('', 'reviewz/stars', 'reviewz'),
    relation('', '-autor/name', 'autor', 'author'),
    relation(any('reviwes', 'r', 'r/stars eq 1'), undefined, 'reviwes', 'reviews'),
    relation(any('authr', 'a', "a/name eq 'x'"), undefined, 'authr'),
    {
      name: 'a field inside a quantifier suggests a field of its relation',
      policy: 'book',
      filter: any('reviews', 'r', 'r/stras eq 1'),
      code: 'unknown_field',
      at: 'stras',
      message: "unknown field 'stras'; did you mean 'stars'?",
    },
  ];
}

const ERROR_ROWS: readonly ErrorRow[] = [
  {
    name: 'non-existent field',
    policy: 'book',
    filter: 'nope eq 1',
    code: 'unknown_field',
    at: 'nope',
    message: "unknown field 'nope'",
  },
  {
    name: 'hidden property',
    policy: 'product',
    filter: "secret eq 'x'",
    code: 'unknown_field',
    at: 'secret',
    message: "unknown field 'secret'",
  },
  {
    name: 'property name of a serialized field',
    policy: 'product',
    filter: "sku eq 'x'",
    code: 'unknown_field',
    at: 'sku',
    message: "unknown field 'sku'",
  },
  {
    name: 'undisclosed relation (property behind a public name)',
    policy: 'book',
    filter: "coAuthor/name eq 'x'",
    code: 'invalid_relationship',
    at: 'coAuthor',
    // The suggestion comes from the exposed relations only: a non-existent 'coAuthor' gets the very same message.
    message: "unknown relationship 'coAuthor'; did you mean 'author'?",
  },
  {
    name: 'non-existent relation: worded exactly like an undisclosed one',
    policy: 'book',
    filter: "nothere/name eq 'x'",
    code: 'invalid_relationship',
    at: 'nothere',
    message: "unknown relationship 'nothere'",
  },
  {
    name: 'undisclosed nested relation',
    policy: 'book',
    filter: "author/mentor/name eq 'x'",
    code: 'invalid_relationship',
    at: 'mentor',
    message: "unknown relationship 'mentor'",
  },
  {
    name: 'hidden nested property',
    policy: 'book',
    filter: "author/secret eq 'x'",
    code: 'unknown_field',
    at: 'secret',
    message: "unknown field 'secret'",
  },
  {
    name: 'unknown field inside a quantifier',
    policy: 'book',
    filter: any('reviews', 'r', 'r/nope eq 1'),
    code: 'unknown_field',
    at: 'nope',
  },
  {
    name: 'unknown relation in a quantifier path',
    policy: 'book',
    filter: any('notes', 'n', 'n/x eq 1'),
    code: 'invalid_relationship',
    at: 'notes',
  },
  { name: 'unknown sort field', policy: 'book', sort: '-price,nope', code: 'unknown_field', at: 'nope' },
  // Suggestions: the closest exposed name the client could use at that point, when one is near; never a hidden one.
  ...suggestionRows(),
  {
    name: 'visible-only field in filter',
    policy: 'product',
    filter: "description eq 'x'",
    code: 'field_not_filterable',
    at: 'description',
  },
  {
    name: 'sortable-only field in filter',
    policy: 'book',
    filter: and('price gt 1', 'id eq 1'),
    code: 'field_not_filterable',
    at: 'id',
  },
  {
    name: 'nested field not filterable',
    policy: 'book',
    filter: 'author/id eq 1',
    code: 'field_not_filterable',
    at: 'author',
  },
  {
    name: 'visible-only field in sort',
    policy: 'product',
    sort: 'description',
    code: 'field_not_sortable',
    at: 'description',
  },
  { name: 'filterable but not sortable', policy: 'product', sort: 'name,code', code: 'field_not_sortable', at: 'code' },
  {
    name: 'nested field not sortable',
    policy: 'book',
    sort: 'author/emailAddress',
    code: 'field_not_sortable',
    at: 'author',
  },
  {
    name: 'gt not declared',
    policy: 'product',
    filter: "name gt 'a'",
    code: 'operator_not_allowed',
    at: 'gt',
    message: "operator 'gt' is not allowed on 'name'; allowed: eq, contains, in",
  },
  {
    name: 'not in needs nin',
    policy: 'product',
    filter: "name not in ('a')",
    code: 'operator_not_allowed',
    at: 'not in',
    message: "operator 'not in' is not allowed on 'name'; allowed: eq, contains, in",
  },
  {
    name: 'is null needs null',
    policy: 'product',
    filter: 'name is null',
    code: 'operator_not_allowed',
    at: 'is null',
    message: "operator 'is null' is not allowed on 'name'; allowed: eq, contains, in",
  },
  {
    name: 'is not null on a NOT NULL column',
    policy: 'product',
    filter: 'code is not null',
    code: 'operator_not_allowed',
    at: 'is not null',
    message:
      "operator 'is not null' is not allowed on 'code'; allowed: eq, ne, gt, gte, lt, lte, contains, startswith, endswith, in, not in",
  },
  {
    name: 'in not declared',
    policy: 'product',
    filter: 'stock ne 1',
    code: 'operator_not_allowed',
    at: 'ne',
    message: "operator 'ne' is not allowed on 'stock'; allowed: eq, gt, in, is null, is not null",
  },
  { name: 'literal of the wrong kind', policy: 'product', filter: "stock eq 'x'", code: 'invalid_literal', at: "'x'" },
  { name: 'bad literal in a list', policy: 'product', filter: "stock in (1, 'x')", code: 'invalid_literal', at: "'x'" },
  { name: 'number for contains', policy: 'product', filter: 'name contains 5', code: 'invalid_literal', at: '5' },
  {
    name: 'to-many path without quantifier',
    policy: 'book',
    filter: 'reviews/stars eq 1',
    code: 'invalid_relationship',
    at: 'reviews',
  },
  {
    name: 'to-many hop in a nested path',
    policy: 'book',
    filter: "author/tags/label eq 'x'",
    code: 'invalid_relationship',
    at: 'tags',
  },
  {
    name: 'quantifier over to-one',
    policy: 'book',
    filter: any('author', 'a', "a/name eq 'x'"),
    code: 'invalid_relationship',
    at: 'author',
  },
  {
    name: 'path ends on a relation',
    policy: 'book',
    filter: 'author eq 1',
    code: 'invalid_relationship',
    at: 'author',
  },
  {
    name: 'field used as a relation',
    policy: 'book',
    filter: 'title/x eq 1',
    code: 'invalid_relationship',
    at: 'title',
  },
  {
    name: 'quantifier over a field',
    policy: 'book',
    filter: any('title', 't', 't/x eq 1'),
    code: 'invalid_relationship',
    at: 'title',
  },
  { name: 'sort through to-many', policy: 'book', sort: 'reviews/stars', code: 'invalid_relationship', at: 'reviews' },
  {
    name: 'sort ending on a relation',
    policy: 'book',
    sort: 'title,author',
    code: 'invalid_relationship',
    at: 'author',
  },
  {
    name: 'path outside the variable scope',
    policy: 'authorRoot',
    filter: any('books', 'b', "title eq 'x'"),
    code: 'invalid_relationship',
    at: 'title',
  },
  {
    name: 'bare variable',
    policy: 'authorRoot',
    filter: any('books', 'b', 'b eq 1'),
    code: 'invalid_relationship',
    at: 'b eq',
    after: 0,
  },
  {
    name: 'shadowed variable',
    policy: 'authorRoot',
    filter: any('books', 'b', any('b/reviews', 'b', 'b/stars eq 1')),
    code: 'invalid_relationship',
    at: 'b:',
    after: 12,
  },
];

interface LiteralRow {
  readonly policy: 'product' | 'sample';
  readonly field: string;
  readonly literal: string;
  /** Database value on both dialects, per dialect, or 'reject' for invalid_literal. */
  readonly expect: { readonly both: unknown } | Readonly<Record<Dialect, unknown>> | 'reject';
}

const d = (iso: string) => `Date(${new Date(iso).toISOString()})`;
const ms = (iso: string) => new Date(iso).getTime();

const LITERAL_ROWS: readonly LiteralRow[] = [
  // integer (32-bit), smallint, tinyint, mediumint
  { policy: 'product', field: 'stock', literal: '2147483647', expect: { both: 2147483647 } },
  { policy: 'product', field: 'stock', literal: '-2147483648', expect: { both: -2147483648 } },
  { policy: 'product', field: 'stock', literal: '2147483648', expect: 'reject' },
  { policy: 'product', field: 'stock', literal: '1.0', expect: 'reject' },
  { policy: 'product', field: 'stock', literal: '1e2', expect: 'reject' },
  { policy: 'product', field: 'stock', literal: "'1'", expect: 'reject' },
  { policy: 'sample', field: 'small', literal: '32767', expect: { both: 32767 } },
  { policy: 'sample', field: 'small', literal: '32768', expect: 'reject' },
  { policy: 'sample', field: 'tiny', literal: '-128', expect: { both: -128 } },
  { policy: 'sample', field: 'tiny', literal: '128', expect: 'reject' },
  { policy: 'sample', field: 'medium', literal: '8388607', expect: { both: 8388607 } },
  { policy: 'sample', field: 'medium', literal: '8388608', expect: 'reject' },
  // bigint: exact, as the decimal string MikroORM binds
  { policy: 'product', field: 'views', literal: '9223372036854775807', expect: { both: '9223372036854775807' } },
  { policy: 'product', field: 'views', literal: '-9223372036854775808', expect: { both: '-9223372036854775808' } },
  { policy: 'product', field: 'views', literal: '9007199254740993', expect: { both: '9007199254740993' } },
  { policy: 'product', field: 'views', literal: '9223372036854775808', expect: 'reject' },
  { policy: 'product', field: 'views', literal: '1.5', expect: 'reject' },
  // decimal: exact, normalized decimal string
  { policy: 'product', field: 'price', literal: '10.50', expect: { both: '10.5' } },
  { policy: 'product', field: 'price', literal: '1e2', expect: { both: '100' } },
  { policy: 'product', field: 'price', literal: '1.5e2', expect: { both: '150' } },
  // Within price's scale (2): literals finer than the scale are rewritten on SQLite (see the scale rows below).
  { policy: 'product', field: 'price', literal: '-0.10', expect: { both: '-0.1' } },
  { policy: 'product', field: 'price', literal: '25E-2', expect: { both: '0.25' } },
  { policy: 'product', field: 'price', literal: '9999999999.99', expect: { both: '9999999999.99' } },
  // Beyond every value of numeric(12, 2): MariaDB binds 10^10, which compares alike with each (docs/policy.md).
  {
    policy: 'product',
    field: 'price',
    literal: '12345678901234567890.01',
    expect: { sqlite: '12345678901234567890.01', postgresql: '12345678901234567890.01', mariadb: '10000000000' },
  },
  {
    policy: 'product',
    field: 'price',
    literal: '-1e81',
    expect: { sqlite: `-1${'0'.repeat(81)}`, postgresql: `-1${'0'.repeat(81)}`, mariadb: '-10000000000' },
  },
  { policy: 'product', field: 'price', literal: '1e5000', expect: 'reject' },
  { policy: 'product', field: 'price', literal: "'10'", expect: 'reject' },
  // double / float: finite
  { policy: 'product', field: 'rating', literal: '4.5', expect: { both: 4.5 } },
  { policy: 'product', field: 'rating', literal: '-1e308', expect: { both: -1e308 } },
  { policy: 'product', field: 'rating', literal: '1e400', expect: 'reject' },
  { policy: 'product', field: 'rating', literal: 'true', expect: 'reject' },
  { policy: 'sample', field: 'ratio', literal: '0.25', expect: { both: 0.25 } },
  // boolean: SQLite has no boolean column type and stores 1/0; MariaDB's BOOLEAN is TINYINT(1)
  { policy: 'product', field: 'active', literal: 'true', expect: { sqlite: 1, postgresql: true, mariadb: 1 } },
  { policy: 'product', field: 'active', literal: 'false', expect: { sqlite: 0, postgresql: false, mariadb: 0 } },
  { policy: 'product', field: 'active', literal: '1', expect: 'reject' },
  { policy: 'product', field: 'active', literal: "'true'", expect: 'reject' },
  // datetime: RFC 3339 with a required offset; SQLite stores epoch milliseconds
  {
    policy: 'product',
    field: 'createdAt',
    literal: "'2024-01-15T10:00:00Z'",
    expect: {
      sqlite: ms('2024-01-15T10:00:00Z'),
      postgresql: d('2024-01-15T10:00:00Z'),
      mariadb: d('2024-01-15T10:00:00Z'),
    },
  },
  {
    policy: 'product',
    field: 'createdAt',
    literal: "'2024-01-15T12:00:00+02:00'",
    expect: {
      sqlite: ms('2024-01-15T10:00:00Z'),
      postgresql: d('2024-01-15T10:00:00Z'),
      mariadb: d('2024-01-15T10:00:00Z'),
    },
  },
  {
    policy: 'product',
    field: 'createdAt',
    literal: "'2024-01-15t10:00:00.5-01:30'",
    expect: {
      sqlite: ms('2024-01-15T11:30:00.500Z'),
      postgresql: d('2024-01-15T11:30:00.500Z'),
      mariadb: d('2024-01-15T11:30:00.500Z'),
    },
  },
  {
    policy: 'product',
    field: 'createdAt',
    literal: "'2024-01-15T10:00:00.123000Z'",
    expect: {
      sqlite: ms('2024-01-15T10:00:00.123Z'),
      postgresql: d('2024-01-15T10:00:00.123Z'),
      mariadb: d('2024-01-15T10:00:00.123Z'),
    },
  },
  {
    policy: 'product',
    field: 'createdAt',
    literal: "'2024-02-29T00:00:00Z'",
    expect: {
      sqlite: ms('2024-02-29T00:00:00Z'),
      postgresql: d('2024-02-29T00:00:00Z'),
      mariadb: d('2024-02-29T00:00:00Z'),
    },
  },
  { policy: 'product', field: 'createdAt', literal: "'2024-01-15T10:00:00'", expect: 'reject' },
  { policy: 'product', field: 'createdAt', literal: "'2024-01-15 10:00:00Z'", expect: 'reject' },
  { policy: 'product', field: 'createdAt', literal: "'2024-01-15T10:00:00.123456Z'", expect: 'reject' },
  { policy: 'product', field: 'createdAt', literal: "'2024-02-30T00:00:00Z'", expect: 'reject' },
  { policy: 'product', field: 'createdAt', literal: "'2023-02-29T00:00:00Z'", expect: 'reject' },
  { policy: 'product', field: 'createdAt', literal: "'2024-01-15T24:00:00Z'", expect: 'reject' },
  { policy: 'product', field: 'createdAt', literal: "'2024-01-15T10:00:00+24:00'", expect: 'reject' },
  { policy: 'product', field: 'createdAt', literal: '1705312800000', expect: 'reject' },
  {
    policy: 'sample',
    field: 'localAt',
    literal: "'2024-01-15T10:00:00Z'",
    expect: {
      sqlite: ms('2024-01-15T10:00:00Z'),
      postgresql: d('2024-01-15T10:00:00Z'),
      mariadb: d('2024-01-15T10:00:00Z'),
    },
  },
  // date
  { policy: 'product', field: 'releasedOn', literal: "'2024-02-29'", expect: { both: '2024-02-29' } },
  { policy: 'product', field: 'releasedOn', literal: "'2024-02-30'", expect: 'reject' },
  { policy: 'product', field: 'releasedOn', literal: "'2023-02-29'", expect: 'reject' },
  { policy: 'product', field: 'releasedOn', literal: "'2024-13-01'", expect: 'reject' },
  { policy: 'product', field: 'releasedOn', literal: "'2024-1-5'", expect: 'reject' },
  { policy: 'product', field: 'releasedOn', literal: "'2024-01-15T00:00:00Z'", expect: 'reject' },
  // uuid: canonical form, normalized to lower case
  {
    policy: 'product',
    field: 'uuid',
    literal: "'0B6A1C52-5F3C-4F0E-9F5E-000000000001'",
    expect: { both: '0b6a1c52-5f3c-4f0e-9f5e-000000000001' },
  },
  { policy: 'product', field: 'uuid', literal: "'0b6a1c525f3c4f0e9f5e000000000001'", expect: 'reject' },
  { policy: 'product', field: 'uuid', literal: "'{0b6a1c52-5f3c-4f0e-9f5e-000000000001}'", expect: 'reject' },
  { policy: 'product', field: 'uuid', literal: "'0b6a1c52-5f3c-4f0e-9f5e-00000000000g'", expect: 'reject' },
  // enum: one of the items (string and numeric enums)
  { policy: 'product', field: 'status', literal: "'active'", expect: { both: 'active' } },
  { policy: 'product', field: 'status', literal: "'ACTIVE'", expect: 'reject' },
  { policy: 'product', field: 'status', literal: '1', expect: 'reject' },
  { policy: 'sample', field: 'level', literal: '2', expect: { both: 2 } },
  { policy: 'sample', field: 'level', literal: '4', expect: 'reject' },
  { policy: 'sample', field: 'level', literal: "'2'", expect: 'reject' },
  // strings: only string literals, kept as written
  { policy: 'product', field: 'code', literal: "'O''Brien %_\\'", expect: { both: "O'Brien %_\\" } },
  { policy: 'product', field: 'code', literal: '5', expect: 'reject' },
  { policy: 'product', field: 'code', literal: 'false', expect: 'reject' },
  { policy: 'sample', field: 'initials', literal: "'AB'", expect: { both: 'AB' } },
];

/** Show a database value comparably: Dates as `Date(iso)`. */
const shownValue = (v: unknown) => (v instanceof Date ? `Date(${v.toISOString()})` : v);
const names = (relations: FieldRef['relations']) => relations.map((r) => r.publicName);

interface CaughtError {
  code: string;
  message: string;
  parameter?: string;
  offset?: number;
  position?: readonly [number, number, number];
}

function expectError(fn: () => unknown): CaughtError {
  try {
    fn();
  } catch (err) {
    if (!isListError(err)) throw err;
    const out: CaughtError = { code: err.code, message: err.message };
    if (err.parameter !== undefined) out.parameter = err.parameter;
    if (err.position !== undefined) {
      out.offset = err.position.offset;
      out.position = [err.position.offset, err.position.line, err.position.column];
      // The public position is exactly offset, line and column: no span end leaks into JSON.
      assert.equal(Object.keys(err.position).sort(), ['column', 'line', 'offset']);
    }
    return out;
  }
  throw new Error('expected a ListError');
}

function node<K extends ResolvedFilter['kind']>(
  f: ResolvedFilter | undefined,
  kind: K,
): Extract<ResolvedFilter, { kind: K }> {
  assert.is(f?.kind, kind);
  return f as Extract<ResolvedFilter, { kind: K }>;
}

/** End to end through the real parser: positions are UTF-8 byte offsets of the decoded value. */
const PARSED_ROWS: readonly {
  readonly policy: PolicyName;
  readonly query: Record<string, string>;
  readonly code: string;
  readonly parameter: string;
  /** [byte offset, line, byte column] */
  readonly position: readonly [number, number, number];
}[] = [
  {
    policy: 'book',
    query: { filter: "title eq 'é' and nope eq 1" },
    code: 'unknown_field',
    parameter: 'filter',
    position: [18, 1, 19],
  },
  {
    policy: 'book',
    query: { filter: "title eq 'ü' or price eq 1.5" },
    code: 'invalid_literal',
    parameter: 'filter',
    position: [26, 1, 27],
  },
  {
    policy: 'book',
    query: { filter: 'reviews/any(r: r/stars gt 3) and reviews/stars eq 1' },
    code: 'invalid_relationship',
    parameter: 'filter',
    position: [33, 1, 34],
  },
  {
    policy: 'product',
    query: { filter: "name eq 'x' or\nname gt 'y'" },
    code: 'operator_not_allowed',
    parameter: 'filter',
    position: [20, 2, 6],
  },
  {
    policy: 'book',
    query: { filter: "title eq 'x'", sort: 'title,-reviews/stars' },
    code: 'invalid_relationship',
    parameter: 'sort',
    position: [7, 1, 8],
  },
];

eachDialect('resolveQuery', { entities: [...catalogEntities, ...relationEntities] }, (test, dialect) => {
  // bind() caches per (policy, metadata): each policy resolves once per dialect.
  const run = (name: PolicyName, ctx: DialectContext, query: ParsedQuery) =>
    resolveQuery(POLICIES[name].bind(ctx.db.orm), query);

  for (const row of ERROR_ROWS) {
    test(`error: ${row.name} → ${row.code}`, (ctx) => {
      const query: ParsedQuery = row.filter ? { filter: filterOf(row.filter) } : { sort: sortTerms(row.sort ?? '') };
      const text = row.filter ? (typeof row.filter === 'string' ? row.filter : row.filter.text) : (row.sort ?? '');
      const err = expectError(() => run(row.policy, ctx, query));
      assert.is(err.code, row.code, err.message);
      assert.is(err.parameter, row.filter ? 'filter' : 'sort');
      assert.is(err.offset, text.indexOf(row.at, row.after ?? 0), `position of ${row.at}`);
      if (row.message) assert.is(err.message, row.message);
    });
  }

  for (const row of LITERAL_ROWS) {
    const want = row.expect === 'reject' ? 'reject' : 'both' in row.expect ? row.expect.both : row.expect[dialect];
    test(`literal: ${row.field} eq ${row.literal} → ${want === 'reject' ? 'invalid_literal' : String(want)}`, (ctx) => {
      const text = `${row.field} eq ${row.literal}`;
      if (want === 'reject') {
        const err = expectError(() => run(row.policy, ctx, { filter: filterOf(text) }));
        assert.is(err.code, 'invalid_literal', err.message);
        assert.is(err.offset, text.indexOf(row.literal, row.field.length + 4));
        return;
      }
      const q = run(row.policy, ctx, { filter: filterOf(text) });
      assert.equal(shownValue(node(q.filter, 'compare').value), want);
    });
  }

  // A decimal literal finer than the column's scale (price: numeric(12,2)). PostgreSQL compares numerics exactly, so
  // the comparison stays as written; MariaDB rounds the constants of an IN list to the column's type, so it gets the
  // rewrite too; SQLite stores doubles, so it becomes an exact comparison with the neighbours at
  // the scale (src/bind/decimal-scale.ts). [filter, PostgreSQL shape, SQLite and MariaDB shape]
  const SCALE_ROWS: readonly [string, string, string][] = [
    ['price eq 10.500000000000000001', 'eq 10.500000000000000001', '(gt 10.5 and lt 10.51)'],
    ['price ne 10.505', 'ne 10.505', '(lte 10.5 or gte 10.51)'],
    ['price gt 10.499', 'gt 10.499', 'gt 10.49'],
    ['price gte 10.499', 'gte 10.499', 'gte 10.5'],
    ['price lt 10.501', 'lt 10.501', 'lt 10.51'],
    ['price lte 10.501', 'lte 10.501', 'lte 10.5'],
    ['price gt -0.001', 'gt -0.001', 'gt -0.01'],
    ['price lt -0.001', 'lt -0.001', 'lt 0'],
    ['price in (10.5, 10.555)', 'in [10.5,10.555]', 'in [10.5]'],
    ['price not in (10.555, 1.001)', 'not in [10.555,1.001]', '(lte 10.55 or gte 10.56)'],
    ['price eq 10.50', 'eq 10.5', 'eq 10.5'],
  ];
  const shape = (f: ResolvedFilter): string => {
    if (f.kind === 'compare') return `${f.operator} ${String(f.value)}`;
    if (f.kind === 'in') return `${f.negated ? 'not in' : 'in'} [${f.values.join(',')}]`;
    if (f.kind === 'and' || f.kind === 'or') return `(${shape(f.left)} ${f.kind} ${shape(f.right)})`;
    return f.kind;
  };
  for (const [filter, pgShape, sqliteShape] of SCALE_ROWS) {
    test(`decimal beyond scale: ${filter}`, (ctx) => {
      const q = run('product', ctx, { filter: filterOf(filter) });
      assert.is(shape(q.filter!), dialect === 'postgresql' ? pgShape : sqliteShape);
    });
  }

  test('in / not in convert every value; like keeps the raw string', (ctx) => {
    const q = run('product', ctx, {
      filter: filterOf(and(and('stock in (1, 2)', 'id not in (3)'), "name contains 'a%_'")),
    });
    const top = node(q.filter, 'and');
    const inner = node(top.left, 'and');
    const inList = node(inner.left, 'in');
    assert.equal([inList.values, inList.negated], [[1, 2], false]);
    const notIn = node(inner.right, 'in');
    assert.equal([notIn.values, notIn.negated], [[3], true]);
    const like = node(top.right, 'like');
    assert.equal([like.operator, like.value], ['contains', 'a%_']);
  });

  test('is null / is not null, not, or keep their shape and spans', (ctx) => {
    const piece = or(not('stock is null'), 'stock is not null');
    const q = run('product', ctx, { filter: filterOf(piece) });
    const top = node(q.filter, 'or');
    assert.equal(top.span, span(0, piece.text.length));
    const negation = node(top.left, 'not');
    assert.is(node(negation.operand, 'null').negated, false);
    assert.is(node(top.right, 'null').negated, true);
    assert.is(node(top.right, 'null').target.field.column, 'stock');
  });

  test('to-one paths resolve hop by hop, public names to properties', (ctx) => {
    const q = run('book', ctx, { filter: filterOf(and("author/publisher/name eq 'P1'", "writer/name eq 'W'")) });
    const top = node(q.filter, 'and');
    const left = node(top.left, 'compare');
    assert.equal(names(left.target.relations), ['author', 'publisher']);
    assert.is(left.target.field.property, 'name');
    assert.is(left.target.variable, undefined);
    assert.equal(
      node(top.right, 'compare').target.relations.map((r) => r.property),
      ['coAuthor'],
    );
  });

  test('quantifiers resolve their relation hops, variable and predicate scope', (ctx) => {
    const q = run('book', ctx, { filter: filterOf(all('reviews', 'r', 'r/stars gte 4')) });
    const quantifier = node(q.filter, 'quantifier');
    assert.equal([quantifier.quantifier, quantifier.variable, quantifier.from], ['all', 'r', undefined]);
    assert.equal(names(quantifier.relations), ['reviews']);
    const pred = node(quantifier.predicate, 'compare');
    assert.equal([pred.target.variable, pred.target.field.publicName, pred.value], ['r', 'stars', 4]);
  });

  test('nested quantifiers start from a variable, through to-one hops, and see outer variables', (ctx) => {
    const piece = any(
      'books',
      'b',
      and(any('b/author/tags', 't', "t/label eq 'x'"), any('b/reviews', 'r', "b/title eq 'y'")),
    );
    const q = run('authorRoot', ctx, { filter: filterOf(piece) });
    const outer = node(q.filter, 'quantifier');
    assert.equal(names(outer.relations), ['books']);
    const both = node(outer.predicate, 'and');
    const tags = node(both.left, 'quantifier');
    assert.equal([tags.from, names(tags.relations), tags.variable], ['b', ['author', 'tags'], 't']);
    const reviews = node(both.right, 'quantifier');
    const pred = node(reviews.predicate, 'compare');
    assert.equal([reviews.from, pred.target.variable, pred.target.field.publicName], ['b', 'b', 'title']);
  });

  test('a variable may be reused in sibling quantifiers', (ctx) => {
    const q = run('book', ctx, {
      filter: filterOf(and(any('reviews', 'r', 'r/stars eq 1'), any('reviews', 'r', 'r/stars eq 2'))),
    });
    assert.is(node(q.filter, 'and').kind, 'and');
  });

  test('sort resolves to root field refs through to-one hops, in order', (ctx) => {
    const q = run('book', ctx, { sort: sortTerms('-price,author/publisher/name,title') });
    assert.equal(
      q.sort.map((t) => [names(t.target!.relations), t.target!.field.publicName, t.direction]),
      [
        [[], 'price', 'desc'],
        [['author', 'publisher'], 'name', 'asc'],
        [[], 'title', 'asc'],
      ],
    );
    assert.is(q.sort[0]!.target!.span.offset, 1);
  });

  for (const row of PARSED_ROWS) {
    test(`parsed: ${JSON.stringify(row.query)} → ${row.code}`, (ctx) => {
      const err = expectError(() => run(row.policy, ctx, parseHTTP(row.query)));
      assert.equal([err.code, err.parameter, err.position], [row.code, row.parameter, row.position], err.message);
    });
  }

  test('parsed: a valid query resolves end to end', (ctx) => {
    const q = run(
      'book',
      ctx,
      parseHTTP({ filter: "reviews/all(r: r/stars gte 4) and author/name eq 'Ann'", sort: '-price', limit: '5' }),
    );
    const top = node(q.filter, 'and');
    assert.equal(names(node(top.left, 'quantifier').relations), ['reviews']);
    assert.is(node(top.right, 'compare').value, 'Ann');
    assert.equal([q.sort[0]?.direction, q.limit], ['desc', 5]);
  });

  test('limit, offset, cursor, count and search are copied unchanged', (ctx) => {
    const q: ResolvedQuery = run('book', ctx, { limit: 5, offset: 10, cursor: 'abc', count: true, search: 'hello' });
    assert.equal(q, { sort: [], limit: 5, offset: 10, cursor: 'abc', count: true, search: 'hello' });
    assert.equal(run('book', ctx, {}), { sort: [] });
  });
});
