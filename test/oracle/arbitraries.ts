/**
 * fast-check arbitraries for requests within a policy: filters with every operator a field allows, literals from
 * the data and near each kind's edges, nested and/or/not, to-one paths, nested any/all and relation aggregates
 * (count, sum, avg, min, max); sorts; page sizes.
 */
import fc from 'fast-check';
import type { AggregateFn, GenFilter, GenLiteral, GenPath, Spacing, ValueOp } from './filter.ts';
import { writeLiteral } from './literals.ts';
import { type EntitySpec, type FieldSpec, fieldOf, type RelationSpec } from './model.ts';
import { INTEGERS, poolOf } from './pools.ts';
import type { GenSortTerm } from './sort.ts';
import { type Collation, type DbModel, type Kind, MODELLED_CHARACTERS, type Value } from './values.ts';

/** Shape bounds of generated filters, kept inside the default limits (nodes 100, depth 16, quantifiers 4). */
export interface ShapeOptions {
  /** Nesting of and/or/not/quantifiers. */
  readonly depth: number;
  /** To-one hops allowed in one path. */
  readonly hops: number;
  /** Nesting of any/all. */
  readonly quantifiers: number;
  /**
   * The collation of the database's string columns. Under `general_ci` random string literals keep to the
   * characters the oracle models that collation for (values.ts), so the reference never compares by guesswork.
   */
  readonly strings?: Collation;
  /** The years date and date-time literals stay within (the column types' range, values.ts DbModel); 1–9999 if unset. */
  readonly dateTimeYears?: readonly [number, number];
}

const CONTROL = /[\u0000-\u001f\u007f]/;
const WILD = fc.constantFrom('%', '_', '\\', '*', '?', '[', ']', "'", 'a', 'A', 'é', '😀', ' ', 'ß', '!');
const HIGH_PRECISION = [
  '10.500000000000000001',
  '10.499999999999999999',
  '0.000000000000000000001',
  '9999999999.995',
  '-0.005',
  '100000000000000000000',
  '123.4500000000000000000001',
];

/** The shape options that keep generated literals inside what database `db` models and holds. */
export function shapeFor(db: DbModel): Pick<ShapeOptions, 'strings' | 'dateTimeYears'> {
  return db.dateTimeYears ? { strings: db.strings, dateTimeYears: db.dateTimeYears } : { strings: db.strings };
}

/** Values of a kind that the data may not hold: near the type's edges, or random. */
function edgeValue(
  kind: Kind,
  strings: Collation = 'binary',
  years: readonly [number, number] = [1, 9999],
): fc.Arbitrary<Value> {
  switch (kind) {
    case 'string':
      return fc.oneof(
        strings === 'binary'
          ? fc.string({ unit: 'binary', maxLength: 8 }).filter((s) => !CONTROL.test(s))
          : fc.string({ unit: fc.constantFrom(...MODELLED_CHARACTERS), maxLength: 8 }),
        fc.string({ unit: WILD, maxLength: 6 }),
        fc.constantFrom('ab'.repeat(1000), `${'x'.repeat(299)}%`),
      );
    case 'enum':
    case 'boolean':
      return fc.constantFrom(...poolOf(kind));
    case 'uuid':
      return fc.uuid();
    case 'integer':
      return fc.integer({ min: -2147483648, max: 2147483647 });
    case 'bigint':
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 'decimal': {
      // Up to 4 fractional digits against a scale-2 column, and literals far beyond it: SQLite stores doubles, so
      // listql rewrites such comparisons at the column's scale (found by this oracle; src/bind/decimal-scale.ts).
      const random = fc
        .tuple(fc.bigInt({ min: -(10n ** 14n), max: 10n ** 14n }), fc.integer({ min: 0, max: 4 }))
        .map(([digits, s]) => placePoint(digits, s));
      return fc.oneof(random, fc.constantFrom(...HIGH_PRECISION));
    }
    case 'float':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'date': {
      const min = new Date(`${String(years[0]).padStart(4, '0')}-01-01T00:00:00Z`);
      const max = new Date(`${String(years[1]).padStart(4, '0')}-12-31T00:00:00Z`);
      return fc.date({ min, max, noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    }
    case 'datetime': {
      // A day inside the range on each side, so every offset spelling of the literal stays in range too.
      const [from, to] = years;
      const min = new Date(`${String(from).padStart(4, '0')}-01-02T00:00:00Z`);
      const max = new Date(`${String(to).padStart(4, '0')}-12-30T23:59:59.999Z`);
      return fc.date({ min, max, noInvalidDate: true }).map((d) => d.getTime());
    }
    default: {
      const never: never = kind;
      throw new Error(`oracle: unknown kind ${String(never)}`);
    }
  }
}

function placePoint(digits: bigint, scale: number): string {
  const negative = digits < 0n;
  const text = (negative ? -digits : digits).toString().padStart(scale + 1, '0');
  const whole = text.slice(0, text.length - scale);
  const fraction = text.slice(text.length - scale);
  const plain = scale ? `${whole}.${fraction}` : whole;
  return negative ? `-${plain}` : plain;
}

/** A literal of a field's kind: usually a value the data holds, sometimes an edge value, in any spelling. */
export function literalArb(
  field: FieldSpec,
  strings?: Collation,
  years?: readonly [number, number],
): fc.Arbitrary<GenLiteral> {
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...poolOf(field.kind)) },
    { weight: 1, arbitrary: edgeValue(field.kind, strings, years) },
  );
  return fc.tuple(value, fc.nat(60)).map(([v, variant]) => ({ value: v, text: writeLiteral(field.kind, v, variant) }));
}

/**
 * A string literal for a case-insensitive operator: a value from the data or an edge value, often with the case of
 * some letters flipped (ASCII or not), so that folding is what decides the match.
 */
function caseLiteralArb(field: FieldSpec, strings?: Collation): fc.Arbitrary<GenLiteral> {
  return fc.tuple(literalArb(field, strings), fc.nat(3)).map(([literal, flip]) => {
    if (flip === 0 || typeof literal.value !== 'string') return literal;
    const value = [...literal.value]
      .map((ch, i) => {
        if (i % flip !== 0) return ch;
        const upper = ch.toUpperCase();
        const lower = ch.toLowerCase();
        if (upper !== ch && upper.length === ch.length) return upper;
        return lower.length === ch.length ? lower : ch;
      })
      .join('');
    return { value, text: writeLiteral(field.kind, value, 0) };
  });
}

/** Every path from an entity through up to `hops` to-one relations to a field that `usable` accepts. */
export function pathsOf(
  entity: EntitySpec,
  hops: number,
  usable: (f: FieldSpec) => boolean,
  prefix: readonly RelationSpec[] = [],
): Omit<GenPath, 'variable'>[] {
  const out: Omit<GenPath, 'variable'>[] = entity.fields.filter(usable).map((field) => ({ hops: prefix, field }));
  if (hops > 0)
    for (const r of entity.relations)
      if (r.cardinality === 'one') out.push(...pathsOf(r.target(), hops - 1, usable, [...prefix, r]));
  return out;
}

interface Scope {
  readonly root: EntitySpec;
  /** Active quantifier variables, innermost last; inside a quantifier every path starts with one. */
  readonly variables: readonly { readonly name: string; readonly entity: EntitySpec }[];
}

const VALUE_OPS: readonly ValueOp[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'startswith', 'endswith'];
/** The opt-in case-insensitive operators, drawn at a small weight beside the others where a field declares them. */
const CASE_INSENSITIVE_OPS: readonly ValueOp[] = ['ieq', 'ine', 'icontains', 'istartswith', 'iendswith'];
const VARIABLES = ['x', 'y', 'o', 'r', 't', 'AND', 'id', '_v1'];

function leafArb(scope: Scope, shape: ShapeOptions): fc.Arbitrary<GenFilter> {
  const filterable = (f: FieldSpec): boolean => f.ops.length > 0;
  const paths: GenPath[] =
    scope.variables.length === 0
      ? pathsOf(scope.root, shape.hops, filterable)
      : scope.variables.flatMap((v) =>
          pathsOf(v.entity, shape.hops, filterable).map((p) => ({ ...p, variable: v.name })),
        );
  const fields = fc.constantFrom(...paths).chain((path): fc.Arbitrary<GenFilter> => {
    const ops = path.field.ops;
    const choices: fc.Arbitrary<GenFilter>[] = [];
    const valueOps = VALUE_OPS.filter((op) => ops.includes(op));
    if (valueOps.length)
      choices.push(
        fc
          .tuple(fc.constantFrom(...valueOps), literalArb(path.field, shape.strings, shape.dateTimeYears))
          .map(([op, literal]) => ({ kind: 'cmp', path, op, literal })),
      );
    const caseOps = CASE_INSENSITIVE_OPS.filter((op) => ops.includes(op));
    const caseChoice =
      caseOps.length > 0
        ? fc
            .tuple(fc.constantFrom(...caseOps), caseLiteralArb(path.field, shape.strings))
            .map(([op, literal]): GenFilter => ({ kind: 'cmp', path, op, literal }))
        : undefined;
    for (const negated of [false, true])
      if (ops.includes(negated ? 'nin' : 'in'))
        choices.push(
          fc
            .array(literalArb(path.field, shape.strings, shape.dateTimeYears), { minLength: 1, maxLength: 6 })
            .map((literals) => ({ kind: 'in', path, negated, literals })),
        );
    if (ops.includes('null')) choices.push(fc.boolean().map((negated) => ({ kind: 'null', path, negated })));
    if (!caseChoice) return fc.oneof(...choices);
    return fc.oneof(...choices.map((arbitrary) => ({ weight: 3, arbitrary })), { weight: 1, arbitrary: caseChoice });
  });
  // `<to-one path> is null` on relations exposed with nullCheck, at a small weight beside field comparisons.
  const starts = scope.variables.length ? scope.variables : [{ name: undefined, entity: scope.root }];
  const relationPaths = starts.flatMap((start) =>
    nullCheckPaths(start.entity, shape.hops + 1).map((hops) => ({
      ...(start.name ? { variable: start.name } : {}),
      hops,
    })),
  );
  if (relationPaths.length === 0) return fields;
  const relNull = fc
    .tuple(fc.constantFrom(...relationPaths), fc.boolean())
    .map(([path, negated]): GenFilter => ({ kind: 'relNull', ...path, negated }));
  return fc.oneof({ weight: 10, arbitrary: fields }, { weight: 1, arbitrary: relNull });
}

/** Every chain of up to `hops` to-one relations from an entity whose last relation allows `is null`. */
function nullCheckPaths(entity: EntitySpec, hops: number, prefix: readonly RelationSpec[] = []): RelationSpec[][] {
  const out: RelationSpec[][] = [];
  if (hops === 0) return out;
  for (const r of entity.relations) {
    if (r.cardinality !== 'one') continue;
    if (r.nullCheck) out.push([...prefix, r]);
    out.push(...nullCheckPaths(r.target(), hops - 1, [...prefix, r]));
  }
  return out;
}

const memo = new Map<string, fc.Arbitrary<GenFilter>>();
const specIds = new WeakMap<EntitySpec, number>();
let nextSpecId = 0;

/**
 * Name an entity description for the memo: by identity, since two descriptions of one entity (a policy per place in
 * the tree: Book at the root, Book under Tag) may expose different fields and relations.
 */
function specId(entity: EntitySpec): string {
  let id = specIds.get(entity);
  if (id === undefined) {
    id = nextSpecId++;
    specIds.set(entity, id);
  }
  return `${entity.name}#${id}`;
}

/** Random filters over a root entity within a shape. */
export function filterArb(root: EntitySpec, shape: ShapeOptions): fc.Arbitrary<GenFilter> {
  return nodeArb({ root, variables: [] }, shape, shape.depth, shape.quantifiers);
}

/** Random filters inside one variable's scope over `entity` (an aggregate's inner filter), without quantifiers. */
export function innerFilterArb(
  root: EntitySpec,
  variable: string,
  entity: EntitySpec,
  shape: ShapeOptions,
): fc.Arbitrary<GenFilter> {
  return nodeArb({ root, variables: [{ name: variable, entity }] }, shape, Math.min(shape.depth, 1), 0);
}

function nodeArb(scope: Scope, shape: ShapeOptions, depth: number, quantifiers: number): fc.Arbitrary<GenFilter> {
  const key = `${specId(scope.root)}|${scope.variables.map((v) => `${v.name}:${specId(v.entity)}`).join(',')}|${JSON.stringify(shape)}|${depth}|${quantifiers}`;
  const hit = memo.get(key);
  if (hit) return hit;
  const leaf = leafArb(scope, shape);
  if (depth === 0) {
    memo.set(key, leaf);
    return leaf;
  }
  const child = fc.constant(null).chain(() => nodeArb(scope, shape, depth - 1, quantifiers));
  const options: fc.WeightedArbitrary<GenFilter>[] = [
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: child.map((operand) => ({ kind: 'not', operand })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('and' as const, 'or' as const), child, child)
        .map(([kind, left, right]) => ({ kind, left, right })),
    },
  ];
  if (quantifiers > 0) {
    const q = quantifierArb(scope, shape, depth, quantifiers);
    if (q) options.push({ weight: 2, arbitrary: q });
    const c = countArb(scope, shape, depth, quantifiers);
    if (c) options.push({ weight: 1, arbitrary: c });
  }
  const out = fc.oneof(...options);
  memo.set(key, out);
  return out;
}

/**
 * An aggregate compared with a number: `<to-many>/count() <op> n`, or `sum`, `avg`, `min`, `max` of a field the
 * relation opts in (compared, or tested with `is null`), with or without an inner filter `(v: …)` over the related
 * rows (counted as a quantifier). Numbers are small or from the integer pool; averages also halves, which no average
 * of the fixture's integers comes within MariaDB's 4 extra digits of without equalling it.
 */
function countArb(
  scope: Scope,
  shape: ShapeOptions,
  depth: number,
  quantifiers: number,
): fc.Arbitrary<GenFilter> | undefined {
  const quantified = quantifierArb(scope, shape, depth, quantifiers);
  if (!quantified) return undefined;
  const ops = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const;
  return quantified.chain((q) => {
    if (q.kind !== 'quant') throw new Error('oracle: a quantifier was expected');
    const many = q.hops[q.hops.length - 1]!;
    const fields = (many.aggregated ?? []).map((name) => fieldOf(many.target(), name));
    const counted = fc.record({ fn: fc.constant(undefined), field: fc.constant(undefined) });
    const reduced = fields.length
      ? fc.record({ fn: fc.constantFrom(...AGGREGATE_FNS), field: fc.constantFrom(...fields) })
      : undefined;
    const what: fc.Arbitrary<{ fn: AggregateFn | undefined; field: FieldSpec | undefined }> = reduced
      ? fc.oneof({ weight: 2, arbitrary: counted }, { weight: 3, arbitrary: reduced })
      : counted;
    return fc
      .tuple(what, fc.boolean(), fc.constantFrom(...ops), fc.nat(9))
      .chain(([{ fn, field }, filtered, op, nullTest]) =>
        aggregateValueArb(fn).map((value): GenFilter => {
          const tested = fn !== undefined && nullTest < 2 ? (nullTest === 0 ? 'null' : 'notnull') : op;
          return {
            kind: 'count' as const,
            ...(q.from ? { from: q.from } : {}),
            hops: q.hops,
            ...(fn && field ? { fn, field } : {}),
            ...(filtered ? { inner: { variable: q.variable, predicate: q.predicate } } : {}),
            op: tested,
            value,
          };
        }),
      );
  });
}

const AGGREGATE_FNS: readonly AggregateFn[] = ['sum', 'avg', 'min', 'max'];

/** A number to compare an aggregate with: a count 0–3; near the data's values or from the integer pool; halves for avg. */
function aggregateValueArb(fn: AggregateFn | undefined): fc.Arbitrary<number> {
  if (fn === undefined) return fc.integer({ min: 0, max: 3 });
  const whole = fc.oneof(fc.integer({ min: -1, max: 12 }), fc.constantFrom(...INTEGERS));
  if (fn !== 'avg') return whole;
  return fc.oneof(
    whole,
    fc.integer({ min: -2, max: 24 }).map((n) => n / 2),
  );
}

function quantifierArb(
  scope: Scope,
  shape: ShapeOptions,
  depth: number,
  quantifiers: number,
): fc.Arbitrary<GenFilter> | undefined {
  const starts = scope.variables.length ? scope.variables : [{ name: undefined, entity: scope.root }];
  const routes: { from?: string; hops: RelationSpec[]; target: EntitySpec }[] = [];
  for (const start of starts) {
    const reach = (entity: EntitySpec, hops: RelationSpec[], left: number): void => {
      for (const r of entity.relations) {
        if (r.cardinality === 'many')
          routes.push({ ...(start.name ? { from: start.name } : {}), hops: [...hops, r], target: r.target() });
        else if (left > 0) reach(r.target(), [...hops, r], left - 1);
      }
    };
    reach(start.entity, [], 1);
  }
  const active = new Set(scope.variables.map((v) => v.name));
  const names = VARIABLES.filter((n) => !active.has(n));
  if (!routes.length || !names.length) return undefined;
  return fc
    .tuple(fc.constantFrom(...routes), fc.constantFrom(...names), fc.constantFrom('any' as const, 'all' as const))
    .chain(([route, variable, quantifier]) =>
      nodeArb(
        { root: scope.root, variables: [...scope.variables, { name: variable, entity: route.target }] },
        shape,
        depth - 1,
        quantifiers - 1,
      ).map((predicate) => ({
        kind: 'quant' as const,
        quantifier,
        ...(route.from ? { from: route.from } : {}),
        hops: route.hops,
        variable,
        predicate,
      })),
    );
}

/** A sort key's modifiers: mostly none, sometimes `:ci`, `:nullsfirst` or `:nullslast`. */
const modifiersArb: fc.Arbitrary<{ readonly ci?: boolean; readonly nulls?: 'first' | 'last' }> = fc.record(
  {
    ci: fc.boolean(),
    nulls: fc.constantFrom('first' as const, 'first' as const, 'last' as const),
  },
  { requiredKeys: [] },
);

/** Random sorts: up to `max` distinct sortable paths with random directions and modifiers. */
export function sortArb(root: EntitySpec, hops: number, max = 3): fc.Arbitrary<GenSortTerm[]> {
  const paths = pathsOf(root, hops, (f) => f.sortable);
  return fc
    .uniqueArray(fc.constantFrom(...paths), {
      maxLength: max,
      selector: (p) => [...p.hops.map((h) => h.name), p.field.name].join('/'),
    })
    .chain((chosen) =>
      fc
        .array(fc.tuple(fc.constantFrom('asc' as const, 'desc' as const), modifiersArb), {
          minLength: chosen.length,
          maxLength: chosen.length,
        })
        .map((orders) =>
          chosen.map((p, i) => {
            const [direction, { ci, nulls }] = orders[i] ?? ['asc', {}];
            // `:ci` on the string fields (every policy of the oracle allows it there), a NULL placement on any key.
            return {
              hops: p.hops,
              field: p.field,
              direction,
              ...(ci && p.field.kind === 'string' ? { ci } : {}),
              ...(nulls ? { nulls } : {}),
            };
          }),
        ),
    );
}

/** Whitespace between tokens: one or more valid separators, cycled through by the printer. */
export const spacingArb: fc.Arbitrary<Spacing> = fc.array(fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', ' \t '), {
  minLength: 1,
  maxLength: 3,
});
