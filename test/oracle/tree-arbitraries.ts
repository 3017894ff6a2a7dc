/**
 * fast-check arbitraries for nested selections within a policy (tree.ts): at each level a shuffled subset of the
 * fields (and of the to-one keys a row holds, named bare), and up to `width` selectable relations, the same one
 * twice under an alias (`best:reviews(…)`), down to `depth` levels; each to-many selection with its own filter (the
 * random filter generator, against that level's entity), sort (nullable keys, through to-one relations), limit,
 * offset and count, each left out at times so the relation's defaults apply. Shrinks towards fewer levels, fewer
 * picks and no list parameters, so a counter-example reads as a short query string.
 */
import fc from 'fast-check';
import { MAX_NESTED_LISTS } from '../../src/syntax/nested-parameters.ts';
import { filterArb, type ShapeOptions, sortArb } from './arbitraries.ts';
import { printable } from './budget.ts';
import type { EntitySpec, RelationSpec } from './model.ts';
import { type GenRequest, requestArb, requestValues, toQueryString, withinLimits } from './request.ts';
import { type GenLevel, type GenList, type GenSelection, nestedValues, printFields } from './tree.ts';

/** Bounds of generated selections. */
export interface TreeShape {
  /** Nesting of selections (`reviews(…)` is 1). */
  readonly depth: number;
  /** Selections per level. */
  readonly width: number;
  /** The shape of nested filters (ShapeOptions of arbitraries.ts, with the database's literal bounds). */
  readonly filter: ShapeOptions;
  /** To-one hops a nested sort key may take. */
  readonly sortHops: number;
}

/**
 * Aliases: plain names, a keyword of the filter grammar and names of list parameters (`count.limit`, `sort.filter`
 * are path-named parameters of the lists aliased `count` and `sort`). None is a field or relation of the fixture.
 */
export const ALIASES = ['best', 'worst', 'x', 'in', 'count', 'sort', 'AND', '_a1'] as const;

/** A selection before its item key is settled against the level's other keys. */
interface Draft {
  readonly relation: RelationSpec;
  /** An alias was asked for, starting the search at this index of ALIASES. */
  readonly alias?: number;
  readonly level: GenLevel;
  readonly list?: GenList;
}

const memo = new WeakMap<EntitySpec, Map<string, fc.Arbitrary<GenLevel>>>();

/** Random picks of one entity's level, nesting up to `depth` more levels. */
export function levelArb(entity: EntitySpec, depth: number, shape: TreeShape): fc.Arbitrary<GenLevel> {
  const key = `${depth}|${JSON.stringify(shape)}`;
  const known = memo.get(entity)?.get(key);
  if (known) return known;
  const names = [
    ...entity.fields.map((f) => f.name),
    ...entity.relations.filter((r) => r.holdsKey && r.select).map((r) => r.name),
  ];
  const selectable = entity.relations.filter((r) => r.select);
  const drafts: fc.Arbitrary<Draft[]> =
    depth > 0 && selectable.length > 0
      ? fc.array(fc.oneof(...selectable.map((r) => draftArb(r, depth, shape))), { maxLength: shape.width })
      : fc.constant([]);
  const out = fc.tuple(fc.shuffledSubarray(names), drafts).map(([fields, picked]) => settle(entity, fields, picked));
  const byShape = memo.get(entity) ?? new Map<string, fc.Arbitrary<GenLevel>>();
  byShape.set(key, out);
  memo.set(entity, byShape);
  return out;
}

function draftArb(relation: RelationSpec, depth: number, shape: TreeShape): fc.Arbitrary<Draft> {
  return fc
    .tuple(
      fc.option(fc.nat(ALIASES.length - 1), { freq: 4, nil: undefined }),
      levelArb(relation.target(), depth - 1, shape),
      relation.cardinality === 'many' ? listArb(relation, shape) : fc.constant(undefined),
    )
    .map(([alias, level, list]) => ({
      relation,
      level,
      ...(alias === undefined ? {} : { alias }),
      ...(list === undefined ? {} : { list }),
    }));
}

/**
 * Give each selection its item key: the relation's name unless an alias was asked for or the name is taken (a
 * second selection of one relation, a to-one key picked bare), else the first free alias. A level picks at least
 * one name.
 */
function settle(entity: EntitySpec, fields: readonly string[], drafts: readonly Draft[]): GenLevel {
  const taken = new Set<string>([...entity.pk, ...entity.fields.map((f) => f.name), ...fields]);
  const selections: GenSelection[] = [];
  for (const draft of drafts) {
    let alias: string | undefined;
    if (draft.alias !== undefined || taken.has(draft.relation.name)) {
      const start = draft.alias ?? 0;
      alias = ALIASES.map((_, i) => ALIASES[(start + i) % ALIASES.length]!).find((a) => !taken.has(a));
      if (alias === undefined) continue;
    }
    const key = alias ?? draft.relation.name;
    taken.add(key);
    selections.push({
      key,
      relation: draft.relation,
      fields: draft.level.fields,
      selections: draft.level.selections,
      ...(alias === undefined ? {} : { alias }),
      ...(draft.list === undefined ? {} : { list: draft.list }),
    });
  }
  const picks = fields.length === 0 && selections.length === 0 ? [entity.fields[0]!.name] : fields;
  return { fields: picks, selections };
}

/** A to-many selection's list parameters within its relation's options; each may be left out. */
function listArb(relation: RelationSpec, shape: TreeShape): fc.Arbitrary<GenList> {
  const target = relation.target();
  const select = relation.select!;
  const small = Math.min(4, select.maxLimit);
  return fc
    .record({
      filter: fc.option(filterArb(target, shape.filter), { freq: 2, nil: undefined }),
      sort: fc.option(sortArb(target, shape.sortHops), { freq: 2, nil: undefined }),
      limit: fc.option(
        fc.oneof(
          { weight: 6, arbitrary: fc.integer({ min: 1, max: small }) },
          { weight: 1, arbitrary: fc.constant(0) },
          { weight: 2, arbitrary: fc.integer({ min: 1, max: select.maxLimit }) },
        ),
        { freq: 3, nil: undefined },
      ),
      offset: fc.option(fc.integer({ min: 0, max: 4 }), { freq: 4, nil: undefined }),
      count: select.allowCount ? fc.option(fc.boolean(), { freq: 2, nil: undefined }) : fc.constant(undefined),
    })
    .map((l) => ({
      ...(l.filter === undefined ? {} : { filter: l.filter }),
      ...(l.sort === undefined || l.sort.length === 0 ? {} : { sort: l.sort }),
      ...(l.limit === undefined ? {} : { limit: l.limit }),
      ...(l.offset === undefined ? {} : { offset: l.offset }),
      ...(l.count === undefined ? {} : { count: l.count }),
    }));
}

/** A whole request: the top level's filter, sort and page (limit at most `maxTop`), and the tree of selections. */
export interface TreeRequest {
  readonly request: GenRequest;
  readonly tree: GenLevel;
  /** Whitespace around the commas and parentheses of `fields`. */
  readonly ws: string;
}

/** The request's decoded query values: the top level's, `fields`, and every nested list's parameters. */
export function treeValues(t: TreeRequest, parts: { offset?: boolean } = {}): Record<string, string> {
  return {
    ...requestValues(t.request, parts),
    fields: printFields(t.tree, t.ws),
    ...nestedValues(t.tree, t.request.spacing),
  };
}

/** The to-many selections of a level and below. */
export function nestedLists(level: GenLevel): GenSelection[] {
  return level.selections.flatMap((s) => [...(s.list ? [s] : []), ...nestedLists(s)]);
}

/** Tell whether a list's parameters are all left out (its path then names no parameter at all). */
function bare(list: GenList): boolean {
  return Object.values(list).every((v) => v === undefined);
}

/** Every nested filter of a level and below. */
export function nestedFilters(level: GenLevel): NonNullable<GenList['filter']>[] {
  return level.selections.flatMap((s) => [...(s.list?.filter ? [s.list.filter] : []), ...nestedFilters(s)]);
}

/**
 * Random tree requests over a root entity: the top level's page holds at most `maxTop` rows, and a top-level filter
 * (the relations suite's subject) is kept one time in three, so most trees hang under a non-empty page.
 */
export function treeRequestArb(
  root: EntitySpec,
  top: ShapeOptions,
  shape: TreeShape,
  maxOffset: number,
  maxTop = 12,
): fc.Arbitrary<TreeRequest> {
  const request = fc.tuple(requestArb(root, top, maxOffset), fc.nat(2)).map(([r, keep]) => {
    const { filter, ...rest } = r;
    const limit = r.limit % (maxTop + 1);
    return keep === 0 && filter ? { ...rest, filter, limit } : { ...rest, limit };
  });
  return (
    fc
      .record({
        request,
        tree: levelArb(root, shape.depth, shape),
        ws: fc.constantFrom('', '', '', ' ', '\n'),
      })
      // Inside the request limits: each filter's size, and the lists a request may give parameters to (16, fixed).
      .filter((t) => nestedFilters(t.tree).every((f) => withinLimits(f, t.request.spacing)))
      .filter((t) => nestedLists(t.tree).filter((s) => !bare(s.list!)).length <= MAX_NESTED_LISTS)
      .map((t) => printable(t, (x) => toQueryString(treeValues(x))))
  );
}
