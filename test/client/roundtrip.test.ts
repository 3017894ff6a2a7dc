/**
 * The client writes what the server reads: random request descriptions are built with `listql/client`, sent through
 * its query string, and read back by the server's own parser (`parseHTTP`, after `fromQueryString`'s decoding); the
 * parsed tree must equal the tree built from the same description here, independently of the client's printer:
 * filters (comparisons, lists, null checks, `and`/`or`/`not` with left-associative folds, quantifiers with outer
 * variables), sorts, `fields` with nested selections and aliases, nested lists' parameters, limit, offset, cursor,
 * count and search. Literals are compared by meaning: strings exactly, numbers as exact decimals (the expected ones
 * written by hand or from integers), dates as instants.
 */
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  client,
  decimal,
  type Filter,
  type FilterBuilder,
  type ListRequest,
  type NestedList,
} from '../../src/client/index.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { budget, SEED } from '../oracle/budget.ts';
import {
  canonicalNumber,
  type Described,
  describedFilter,
  describedRequest,
  expectedFilter,
  expectedRequest,
  normalized,
} from './describe.ts';

type AnyBuilder = FilterBuilder<any, any, any>;

/** Build a described filter with the client, each comparison with the builder of its scope. */
function build(d: Described, builders: ReadonlyMap<string, AnyBuilder>): Filter {
  const b = builders.get('scope' in d ? d.scope : '')!;
  switch (d.kind) {
    case 'comparison':
      return b(d.path.join('/'), d.operator, d.literal.value);
    case 'membership':
      return b(
        d.path.join('/'),
        d.negated ? 'not in' : 'in',
        d.literals.map((l) => l.value),
      );
    case 'nullCheck':
      return b(d.path.join('/'), d.negated ? 'is not null' : 'is null');
    case 'not':
      return b.not(build(d.operand, builders));
    case 'and':
    case 'or':
      return b[d.kind](
        ...d.operands.map((o, i) => (o === null ? ([undefined, null, false] as const)[i % 3] : build(o, builders))),
      );
    case 'quantifier':
      return b[d.quantifier](d.path.join('/'), d.variable, (v: AnyBuilder) =>
        build(d.predicate, new Map([...builders, [d.variable, v]])),
      );
  }
}

function sent(request: ListRequest<any, any>): { filter?: unknown } {
  return normalized(parseHTTP(request.toString())) as { filter?: unknown };
}

test('a random request reads back as the tree it describes', () => {
  fc.assert(
    fc.property(describedRequest, (d) => {
      let request: ListRequest<any, any> = client<any>();
      if (d.fields) request = request.fields(...(d.fields as [string]));
      if (d.filter) {
        const filter = d.filter;
        request = request.filter((b) => build(filter, new Map([['', b]])) as Filter<''>);
      }
      if (d.sort) request = request.sort(...d.sort.map((k) => `${k.descending ? '-' : ''}${k.path.join('/')}`));
      if (d.limit !== undefined) request = request.limit(d.limit);
      if (d.offset !== undefined) request = request.offset(d.offset);
      if (d.cursor !== undefined) request = request.cursor(d.cursor);
      if (d.count !== undefined) request = request.count(d.count);
      if (d.search !== undefined) request = request.search(d.search);
      for (const [path, n] of d.nested) {
        request = request.nested(path as never, (list) => {
          let l: NestedList<any> = list;
          if (n.filter) {
            const filter = n.filter;
            l = l.filter((b) => build(filter, new Map([['', b]])) as Filter<''>);
          }
          if (n.sort) l = l.sort(...n.sort.map((k) => `${k.descending ? '-' : ''}${k.path.join('/')}`));
          if (n.limit !== undefined) l = l.limit(n.limit);
          if (n.offset !== undefined) l = l.offset(n.offset);
          if (n.cursor !== undefined) l = l.cursor(n.cursor);
          if (n.count) l = l.count();
          return l;
        });
      }
      const expected = expectedRequest(d);
      assert.equal(sent(request), expected, request.toString());
      // The same through URLSearchParams and the plain object form.
      assert.equal(normalized(parseHTTP(request.toSearchParams())), expected);
      assert.equal(normalized(parseHTTP(request.toParams())), expected);
    }),
    { seed: SEED, numRuns: budget(400) },
  );
});

test('a random filter of every depth reads back as its tree', () => {
  fc.assert(
    fc.property(describedFilter(4, []), (d) => {
      const request = client<any>().filter((b) => build(d, new Map([['', b]])) as Filter<''>);
      assert.equal(sent(request).filter, expectedFilter(d), request.toParams().filter);
    }),
    { seed: SEED, numRuns: budget(400) },
  );
});

test('any finite double and any Date read back as the same number and instant', () => {
  fc.assert(
    fc.property(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.date({
        min: new Date('0001-01-01T00:00:00Z'),
        max: new Date('9999-12-31T23:59:59.999Z'),
        noInvalidDate: true,
      }),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
      (n, date, big) => {
        const request = client<any>().filter((b) => b.and(b('n', 'eq', n), b('d', 'eq', date), b('b', 'eq', big)));
        const parsed = parseHTTP(request.toString()).filter!;
        assert.ok(parsed.kind === 'and' && parsed.left.kind === 'and');
        const [number, instant, integer] = [parsed.left.left, parsed.left.right, parsed.right];
        assert.ok(number.kind === 'comparison' && number.value.kind === 'number');
        assert.is(Number(number.value.text), n === 0 ? 0 : n);
        assert.ok(instant.kind === 'comparison' && instant.value.kind === 'string');
        assert.match(instant.value.value, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.is(Date.parse(instant.value.value), date.getTime());
        assert.ok(integer.kind === 'comparison' && integer.value.kind === 'number');
        assert.is(BigInt(integer.value.text), big);
      },
    ),
    { seed: SEED, numRuns: budget(300) },
  );
});

test('decimals written as text reach the parser digit for digit', () => {
  fc.assert(
    fc.property(fc.stringMatching(/^-?(0|[1-9]\d{0,30})(\.\d{1,30})?([eE][+-]?\d{1,3})?$/), (text) => {
      const request = client<any>().filter((b) => b('price', 'eq', decimal(text)));
      const parsed = parseHTTP(request.toString()).filter!;
      assert.ok(parsed.kind === 'comparison' && parsed.value.kind === 'number');
      assert.is(parsed.value.text, text);
      assert.is(canonicalNumber(parsed.value.text), canonicalNumber(text));
    }),
    { seed: SEED, numRuns: budget(300) },
  );
});

test.run();
