/**
 * Random descriptions of list requests for the client's round trip (roundtrip.test.ts), and the parsed tree each
 * must give, written here from the description alone (never by the client's printer): `and`/`or` of several operands
 * fold to the left as the grammar reads them, a quantifier's paths start with its variable, numbers are compared as
 * exact decimals whose expected text is written by hand or comes from an integer, dates as their instants in UTC.
 */
import fc from 'fast-check';
import { decimal, type LiteralValue } from '../../src/client/index.ts';
import type { FieldSelection, FilterNode, Literal, NestedParameters, ParsedQuery } from '../../src/syntax/ast.ts';

/** A literal: the value given to the client, and what the parser must read. */
export interface Lit {
  readonly value: LiteralValue;
  readonly expected:
    | { kind: 'string'; value: string }
    | { kind: 'number'; value: string }
    | { kind: 'boolean'; value: boolean };
}

const VALUE_OPERATORS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'startswith',
  'endswith',
  'ieq',
  'ine',
  'icontains',
  'istartswith',
  'iendswith',
] as const;

/** A described filter; `scope` is the variable a path starts with (`''` at the top level). */
export type Described =
  | { kind: 'comparison'; scope: string; path: string[]; operator: (typeof VALUE_OPERATORS)[number]; literal: Lit }
  | { kind: 'membership'; scope: string; path: string[]; negated: boolean; literals: Lit[] }
  | { kind: 'nullCheck'; scope: string; path: string[]; negated: boolean }
  | { kind: 'not'; operand: Described }
  | { kind: 'and' | 'or'; operands: (Described | null)[] }
  | {
      kind: 'quantifier';
      scope: string;
      path: string[];
      quantifier: 'any' | 'all';
      variable: string;
      predicate: Described;
    };

export interface SortDescribed {
  readonly path: string[];
  readonly descending: boolean;
}

/** One entry of `fields`: its output key, the relation when the key is an alias, the names inside parentheses. */
interface FieldDescribed {
  readonly key: string;
  readonly relation?: string;
  readonly children?: FieldDescribed[];
  /** Written in the same object as the entry before it (`{ a: […], b: […] }`). */
  readonly merge: boolean;
}

interface ListDescribed {
  filter?: Described;
  sort?: SortDescribed[];
  limit?: number;
  offset?: number;
  cursor?: string;
  count?: boolean;
}

export interface RequestDescribed extends Omit<ListDescribed, 'count'> {
  fields?: unknown[];
  fieldsExpected?: unknown[];
  count?: boolean | 'estimated';
  search?: string;
  nested: [string, ListDescribed][];
}

/** The exact decimal a number's text means, in its shortest form: `-2.5E-3` is `-0.0025`, `1e3` is `1000`. */
export function canonicalNumber(text: string): string {
  const [, sign, whole, fraction = '', exponent = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
  const digits = whole! + fraction;
  const point = whole!.length + Number(exponent);
  const [int, frac] =
    point <= 0
      ? ['0', '0'.repeat(-point) + digits]
      : point >= digits.length
        ? [digits + '0'.repeat(point - digits.length), '']
        : [digits.slice(0, point), digits.slice(point)];
  const body = int.replace(/^0+(?=\d)/, '') + (frac.replace(/0+$/, '') ? `.${frac.replace(/0+$/, '')}` : '');
  return body === '0' ? '0' : sign + body;
}

const number = (value: LiteralValue, text: string): Lit => ({ value, expected: { kind: 'number', value: text } });
const string = (value: LiteralValue, text: string): Lit => ({ value, expected: { kind: 'string', value: text } });

/** Doubles with their exact decimal meaning, written by hand. */
const DOUBLES: Lit[] = [
  number(0.1, '0.1'),
  number(-2.5e-3, '-0.0025'),
  number(1e21, '1000000000000000000000'),
  number(1.5e-7, '0.00000015'),
  number(123456.789, '123456.789'),
  number(-0, '0'),
  number(5e-324, `0.${'0'.repeat(323)}5`),
  number(Number.MAX_VALUE, `17976931348623157${'0'.repeat(292)}`),
  number(2 ** 53 + 2, '9007199254740994'),
];

/** Dates with their instant written by hand. */
const DATES: Lit[] = [
  string(new Date(Date.UTC(2024, 0, 15, 10, 0, 0, 500)), '2024-01-15T10:00:00.500Z'),
  string(new Date(0), '1970-01-01T00:00:00.000Z'),
  string(new Date(-1), '1969-12-31T23:59:59.999Z'),
  string(new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)), '9999-12-31T23:59:59.999Z'),
  string(new Date('0001-01-01T00:00:00.000Z'), '0001-01-01T00:00:00.000Z'),
];

/** Characters a query string and the filter text treat specially, and any other (no control characters). */
const unit = fc.oneof(
  fc.constantFrom(
    "'",
    "''",
    '%',
    '%27',
    '+',
    '&',
    '=',
    '#',
    '?',
    '/',
    ' ',
    '\\',
    '(',
    ')',
    ',',
    ':',
    'é',
    '😀',
    '\u2028',
  ),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
);
const text = fc.string({ unit, maxLength: 8 }).map((s) => s.replace(/[\x00-\x1f\x7f]/g, ''));

export const literalArb: fc.Arbitrary<Lit> = fc.oneof(
  text.map((s) => string(s, s)),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 }).map((n) => number(n, BigInt(n).toString())),
  fc.maxSafeInteger().map((n) => number(n, BigInt(n).toString())),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map((n) => number(n, n.toString())),
  fc
    .stringMatching(/^-?(0|[1-9]\d{0,20})(\.\d{1,20})?([eE][+-]?\d{1,2})?$/)
    .map((t) => number(decimal(t), canonicalNumber(t))),
  fc.constantFrom(...DOUBLES),
  fc.boolean().map((b): Lit => ({ value: b, expected: { kind: 'boolean', value: b } })),
  fc.constantFrom(...DATES),
);

/** Names of the filter and sort text: none reserved, some close to keywords. */
const NAMES = ['a', 'price', 'TRUE', 'android', 'order', 'x_1', 'notes', '_z', 'Desc', 'isbn'];
const VARIABLES = ['v', 'w', 'q', 'AND', 'id'];
const name = fc.constantFrom(...NAMES);
const path = fc.array(name, { minLength: 1, maxLength: 3 });

function leafArb(scope: fc.Arbitrary<string>): fc.Arbitrary<Described> {
  return fc.oneof(
    fc.record({
      kind: fc.constant('comparison' as const),
      scope,
      path,
      operator: fc.constantFrom(...VALUE_OPERATORS),
      literal: literalArb,
    }),
    fc.record({
      kind: fc.constant('membership' as const),
      scope,
      path,
      negated: fc.boolean(),
      literals: fc.array(literalArb, { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ kind: fc.constant('nullCheck' as const), scope, path, negated: fc.boolean() }),
  );
}

/** Filters up to `depth` levels, inside the quantifiers of `active` variables, with up to `width` operands. */
export function describedFilter(depth: number, active: readonly string[], width = 2): fc.Arbitrary<Described> {
  const scope = active.length === 0 ? fc.constant('') : fc.constantFrom(...active);
  if (depth === 0) return leafArb(scope);
  const sub = describedFilter(depth - 1, active, width);
  const free = VARIABLES.filter((v) => !active.includes(v));
  return fc.oneof(
    { arbitrary: leafArb(scope), weight: 3 },
    { arbitrary: sub.map((operand): Described => ({ kind: 'not', operand })), weight: 1 },
    {
      arbitrary: fc
        .tuple(
          fc.constantFrom('and' as const, 'or' as const),
          fc.array(sub, { minLength: 1, maxLength: width }),
          fc.array(fc.nat(width), { maxLength: 2 }),
        )
        // null: an operand the client leaves out (undefined, null or false), at any place.
        .map(([kind, kept, skipped]): Described => {
          const operands: (Described | null)[] = [...kept];
          for (const at of skipped) operands.splice(at, 0, null);
          return { kind, operands };
        }),
      weight: 2,
    },
    ...(free.length === 0
      ? []
      : [
          {
            arbitrary: fc
              .tuple(scope, path, fc.constantFrom('any' as const, 'all' as const), fc.constantFrom(...free))
              .chain(([s, p, quantifier, variable]) =>
                describedFilter(depth - 1, [...active, variable], width).map(
                  (predicate): Described => ({
                    kind: 'quantifier',
                    scope: s,
                    path: p,
                    quantifier,
                    variable,
                    predicate,
                  }),
                ),
              ),
            weight: 2,
          },
        ]),
  );
}

const sortArb = fc
  .uniqueArray(path, { minLength: 1, maxLength: 3, selector: (p) => p.join('/') })
  .chain((paths) =>
    fc.tuple(...paths.map((p) => fc.boolean().map((descending): SortDescribed => ({ path: p, descending })))),
  );

const cursorArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/);

const listArb: fc.Arbitrary<ListDescribed> = fc.record(
  {
    filter: describedFilter(2, []),
    sort: sortArb,
    limit: fc.nat(1000),
    offset: fc.nat(100_000),
    cursor: cursorArb,
    count: fc.boolean(),
  },
  { requiredKeys: [] },
);

/** `fields` names: not reserved there (`desc` and `in` are names). */
const FIELD_NAMES = ['id', 'title', 'desc', 'in', 'order', 'a', 'b', 'x_1'];

function fieldsArb(depth: number): fc.Arbitrary<FieldDescribed[]> {
  return fc.uniqueArray(fc.constantFrom(...FIELD_NAMES), { minLength: 1, maxLength: 4 }).chain((keys) =>
    fc.tuple(
      ...keys.map((key) =>
        depth >= 3
          ? fc.constant<FieldDescribed>({ key, merge: false })
          : fc.oneof(
              fc.constant<FieldDescribed>({ key, merge: false }),
              fc.tuple(fieldsArb(depth + 1), fc.boolean()).map(([children, merge]) => ({ key, children, merge })),
              fc
                .tuple(fc.constantFrom(...FIELD_NAMES), fieldsArb(depth + 1), fc.boolean())
                .map(([relation, children, merge]) => ({ key, relation, children, merge })),
            ),
      ),
    ),
  );
}

/** The object form of described fields: plain names as strings, selections in objects (merged where described). */
function fieldsObject(fields: readonly FieldDescribed[]): unknown[] {
  const out: unknown[] = [];
  for (const f of fields) {
    if (f.children === undefined) {
      out.push(f.key);
      continue;
    }
    const value = f.relation === undefined ? fieldsObject(f.children) : { [f.relation]: fieldsObject(f.children) };
    const last = out.at(-1);
    if (f.merge && typeof last === 'object') (last as Record<string, unknown>)[f.key] = value;
    else out.push({ [f.key]: value });
  }
  return out;
}

function fieldsExpected(fields: readonly FieldDescribed[]): unknown[] {
  return fields.map((f) => ({
    name: f.relation ?? f.key,
    ...(f.relation === undefined ? {} : { alias: f.key }),
    ...(f.children === undefined ? {} : { children: fieldsExpected(f.children) }),
  }));
}

const searchArb = fc.string({ unit: 'grapheme', maxLength: 10 }).map((s) => s.replaceAll('\0', ''));

export const describedRequest: fc.Arbitrary<RequestDescribed> = fc
  .record(
    {
      fields: fieldsArb(1),
      filter: describedFilter(3, [], 3),
      sort: sortArb,
      limit: fc.nat(1000),
      offset: fc.nat(100_000),
      cursor: cursorArb,
      count: fc.constantFrom(true, false, 'estimated' as const),
      search: searchArb,
      nested: fc.uniqueArray(
        fc.tuple(
          fc.array(name, { minLength: 1, maxLength: 2 }).map((p) => p.join('.')),
          listArb,
        ),
        {
          maxLength: 2,
          selector: ([p]) => p,
        },
      ),
    },
    { requiredKeys: ['nested'] },
  )
  .map(({ fields, ...rest }) =>
    fields === undefined ? rest : { ...rest, fields: fieldsObject(fields), fieldsExpected: fieldsExpected(fields) },
  );

function pathOf(scope: string, path: readonly string[]): string[] {
  return scope === '' ? [...path] : [scope, ...path];
}

/** The parsed tree of a described filter, spans left out (see normalized). */
export function expectedFilter(d: Described): unknown {
  switch (d.kind) {
    case 'comparison':
      return { kind: 'comparison', path: pathOf(d.scope, d.path), operator: d.operator, value: d.literal.expected };
    case 'membership':
      return {
        kind: 'membership',
        path: pathOf(d.scope, d.path),
        negated: d.negated,
        values: d.literals.map((l) => l.expected),
      };
    case 'nullCheck':
      return { kind: 'nullCheck', path: pathOf(d.scope, d.path), negated: d.negated };
    case 'not':
      return { kind: 'not', operand: expectedFilter(d.operand) };
    case 'and':
    case 'or':
      return d.operands
        .filter((o) => o !== null)
        .map(expectedFilter)
        .reduce((left, right) => ({ kind: d.kind, left, right }));
    case 'quantifier':
      return {
        kind: 'quantifier',
        quantifier: d.quantifier,
        path: pathOf(d.scope, d.path),
        variable: d.variable,
        predicate: expectedFilter(d.predicate),
      };
  }
}

function expectedList(d: ListDescribed | RequestDescribed): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (d.filter) out.filter = expectedFilter(d.filter);
  if (d.sort) out.sort = d.sort.map((k) => ({ path: k.path, direction: k.descending ? 'desc' : 'asc' }));
  if (d.limit !== undefined) out.limit = d.limit;
  // The last of offset and cursor wins: the tests give the offset first.
  if (d.cursor !== undefined) out.cursor = d.cursor;
  else if (d.offset !== undefined) out.offset = d.offset;
  if (d.count !== undefined && d.count !== false) out.count = d.count;
  return out;
}

/** The parsed request of a description, spans left out. */
export function expectedRequest(d: RequestDescribed): unknown {
  const out = expectedList(d);
  if (d.search) out.search = d.search;
  if (d.fieldsExpected) out.fields = d.fieldsExpected;
  if (d.nested.length > 0) out.nested = Object.fromEntries(d.nested.map(([p, n]) => [p, expectedList(n)]));
  return out;
}

/** A parsed request without spans: paths as names, literals by meaning (numbers as exact decimals). */
export function normalized(q: ParsedQuery | NestedParameters): unknown {
  const out: Record<string, unknown> = {};
  if (q.filter) out.filter = filterOf(q.filter);
  if (q.sort) out.sort = q.sort.map((t) => ({ path: t.path.segments.map((s) => s.name), direction: t.direction }));
  for (const key of ['limit', 'offset', 'cursor', 'count', 'search'] as const)
    if ((q as ParsedQuery)[key] !== undefined) out[key] = (q as ParsedQuery)[key];
  if ('fields' in q && q.fields) out.fields = q.fields.map(fieldOf);
  if ('nested' in q && q.nested)
    out.nested = Object.fromEntries(Object.entries(q.nested).map(([p, n]) => [p, normalized(n)]));
  return out;
}

function fieldOf(f: FieldSelection): unknown {
  return {
    name: f.name,
    ...(f.alias ? { alias: f.alias.name } : {}),
    ...(f.children ? { children: f.children.map(fieldOf) } : {}),
  };
}

function literalOf(l: Literal): unknown {
  return l.kind === 'number' ? { kind: 'number', value: canonicalNumber(l.text) } : { kind: l.kind, value: l.value };
}

function filterOf(n: FilterNode): unknown {
  const names = (p: { segments: readonly { name: string }[] }) => p.segments.map((s) => s.name);
  switch (n.kind) {
    case 'comparison':
      return { kind: n.kind, path: names(n.path), operator: n.operator, value: literalOf(n.value) };
    case 'membership':
      return { kind: n.kind, path: names(n.path), negated: n.negated, values: n.values.map(literalOf) };
    case 'nullCheck':
      return { kind: n.kind, path: names(n.path), negated: n.negated };
    case 'not':
      return { kind: n.kind, operand: filterOf(n.operand) };
    case 'and':
    case 'or':
      return { kind: n.kind, left: filterOf(n.left), right: filterOf(n.right) };
    case 'quantifier':
      return {
        kind: n.kind,
        quantifier: n.quantifier,
        path: names(n.path),
        variable: n.variable.name,
        predicate: filterOf(n.predicate),
      };
  }
}
