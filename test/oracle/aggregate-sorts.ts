/**
 * Aggregate sort keys for generated root sorts: `-reviews/count()`, `author/books/avg(price):nullsfirst`,
 * `tags/count(t: t/label ne 'red')`, placed among the field keys (the primary key still breaks ties after them).
 */
import fc from 'fast-check';
import { innerFilterArb, type ShapeOptions } from './arbitraries.ts';
import type { GenAggregate } from './evaluate.ts';
import { type AggregateFn, printAggregate, printFilter } from './filter.ts';
import { type EntitySpec, type FieldSpec, fieldOf, type RelationSpec } from './model.ts';
import type { GenSortTerm } from './sort.ts';

/** What a `count()` key sorts as: an integer, never NULL. */
const COUNTED: FieldSpec = { name: 'count', property: '', kind: 'integer', nullable: false, ops: [], sortable: true };
const FNS: readonly AggregateFn[] = ['sum', 'avg', 'min', 'max'];

/** The to-many relations of the root, directly or after one to-one hop: the paths an aggregate key may take. */
function routesOf(root: EntitySpec): RelationSpec[][] {
  const out: RelationSpec[][] = [];
  for (const r of root.relations) {
    if (r.cardinality === 'many') out.push([r]);
    else for (const s of r.target().relations) if (s.cardinality === 'many') out.push([r, s]);
  }
  return out;
}

/** One aggregate key: count() or a reduced field the relation allows, sometimes with an inner filter. */
function aggregateKeyArb(root: EntitySpec, shape: ShapeOptions): fc.Arbitrary<GenSortTerm> | undefined {
  const routes = routesOf(root);
  if (!routes.length) return undefined;
  return fc.constantFrom(...routes).chain((hops) => {
    const target = hops[hops.length - 1]!.target();
    const names = hops[hops.length - 1]!.aggregated ?? [];
    const reduced = names.length
      ? fc.tuple(fc.constantFrom(...FNS), fc.constantFrom(...names)).map(([fn, name]) => ({
          fn,
          field: fieldOf(target, name),
        }))
      : undefined;
    const counted = fc.constant({ fn: undefined, field: COUNTED });
    const what = reduced ? fc.oneof(counted, reduced) : counted;
    const inner = fc.option(innerFilterArb(root, 'r', target, shape), { freq: 3, nil: undefined });
    return fc
      .tuple(what, inner, fc.constantFrom('asc' as const, 'desc' as const), fc.nat(5))
      .map(([{ fn, field }, predicate, direction, nulls]): GenSortTerm => {
        const aggregate: GenAggregate = {
          hops,
          ...(fn ? { fn, field } : {}),
          ...(predicate ? { inner: { variable: 'r', predicate } } : {}),
        };
        return {
          hops,
          field,
          aggregate,
          direction,
          ...(nulls === 0 ? { nulls: 'first' as const } : nulls === 1 ? { nulls: 'last' as const } : {}),
        };
      });
  });
}

/** Add up to two distinct aggregate keys to generated sorts, each at a random place among the field keys. */
export function withAggregateKeys(
  sorts: fc.Arbitrary<GenSortTerm[]>,
  root: EntitySpec,
  shape: ShapeOptions,
): fc.Arbitrary<GenSortTerm[]> {
  const key = aggregateKeyArb(root, shape);
  if (!key) return sorts;
  const keys = fc.uniqueArray(fc.tuple(key, fc.nat()), {
    maxLength: 2,
    selector: ([t]) => (t.aggregate ? printAggregate(t.aggregate, (f) => printFilter(f)) : ''),
  });
  return fc
    .tuple(sorts, fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: keys }))
    .map(([terms, added]) => {
      const out = [...terms];
      for (const [term, at] of added) out.splice(at % (out.length + 1), 0, term);
      return out;
    });
}
