import type { FacetTarget, FieldRef, ResolvedFilter } from './types.ts';

/**
 * The filter a facet counts under (docs/facets.md, Cross-filtering): the request's filter without the conjuncts of its
 * top-level AND chain that test only the facet's own field or relation, so that a client who picked `year eq 1999`
 * still sees the other years' counts. A conjunct is left out when it is one test of the facet's field from the root
 * (`year gt 1990`, `year in (…)`, `year is null`), or, for a relation facet, a test through that relation (`author/name
 * eq 'x'`), its null test (`author is null`), a quantifier over it (`tags/any(…)`) or an aggregate of it (`tags/count() gt 2`). Anything else keeps applying:
 * an `or` or a `not` (even of the facet's field alone) and every test of another field. Undefined when nothing is left.
 *
 * @example withoutOwnClauses(resolve("year gt 1990 and price lt 10"), year) // price lt 10
 */
export function withoutOwnClauses(filter: ResolvedFilter | undefined, target: FacetTarget): ResolvedFilter | undefined {
  if (filter === undefined) return undefined;
  const kept = conjuncts(filter).filter((c) => !isOwnClause(c, target));
  if (kept.length === 0) return undefined;
  return kept.reduce((left, right) => ({ kind: 'and', left, right, span: left.span }));
}

/** The top-level AND chain of a filter; an `and` a dialect rewrite made of one written test stays one conjunct. */
function conjuncts(filter: ResolvedFilter): ResolvedFilter[] {
  if (filter.kind !== 'and' || filter.written) return [filter];
  return [...conjuncts(filter.left), ...conjuncts(filter.right)];
}

/** Tell whether one conjunct tests only the facet's own field or relation (see withoutOwnClauses). */
export function isOwnClause(node: ResolvedFilter, target: FacetTarget): boolean {
  switch (node.kind) {
    case 'compare':
    case 'like':
    case 'in':
    case 'null':
      return refersTo(node.target, target);
    case 'and':
    case 'or':
      // A rewrite of one written test (a decimal finer than its column's scale) is that test.
      return node.written !== undefined && refersTo(node.written.target, target);
    case 'relationNull':
    case 'quantifier':
      return target.kind === 'relation' && node.from === undefined && node.relations[0] === target.relation;
    case 'aggregate':
      // An aggregate over the facet's relation (`tags/count() gt 2`) tests that relation.
      return (
        target.kind === 'relation' &&
        node.aggregate.from === undefined &&
        node.aggregate.relations[0] === target.relation
      );
    case 'not':
      return false;
    default: {
      const never: never = node;
      return never;
    }
  }
}

function refersTo(ref: FieldRef, target: FacetTarget): boolean {
  if (ref.variable !== undefined) return false;
  if (target.kind === 'field') return ref.relations.length === 0 && ref.field === target.field;
  return ref.relations[0] === target.relation;
}
