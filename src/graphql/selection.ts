import {
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  getNamedType,
  type SelectionSetNode,
} from 'graphql';
import { type AliasLevel, freeAlias } from './aliases.ts';
import { type ConnectionArgs, sameArguments, selectionConflict, writeListArguments } from './arguments.ts';
import type { FieldCollector } from './document-walk.ts';
import { facetsParameter } from './facets.ts';
import { levelOf, type NodeFieldSource, type NodeLevel, sourceOf } from './node-source.ts';

/**
 * One engine request for a whole root field: its list parameters, `fields` with every nested selection
 * (`id,title,author(name),best:reviews(stars)`), and the path-named parameters of the nested lists (`best.limit`).
 */
export interface TreeRequest {
  readonly query: Record<string, string>;
  /** The root list pages backward (`last`/`before`). */
  readonly backward: boolean;
  /**
   * The root connection selects `edges { cursor }`: every item needs its cursor. Otherwise only `pageInfo`'s
   * `startCursor` and `endCursor` can be asked for: the first item's and the last item's.
   */
  readonly edgeCursors: boolean;
  /**
   * The cursors nested pages need: `'all'` when a nested connection selects `edges { cursor }`, `'ends'` (each page's
   * first and last item's) when one selects `pageInfo`, else `'none'`.
   */
  readonly nestedCursors: NestedCursors;
  /** The dotted paths of nested lists that page backward. */
  readonly backwardLists: readonly string[];
  /** Per dotted path of a nested list in the request: its path of response keys, and whether it pages backward. */
  readonly lists: ReadonlyMap<string, { readonly name: string; readonly backward: boolean }>;
  /** Where nested results were fetched under another key than their response key; absent when none was. */
  readonly aliases?: AliasLevel;
}

interface State {
  readonly collect: FieldCollector;
  readonly variables: GraphQLResolveInfo['variableValues'];
  readonly query: Record<string, string>;
  readonly backwardLists: string[];
  readonly lists: Map<string, { readonly name: string; readonly backward: boolean }>;
  nestedCursors: NestedCursors;
}

type NestedCursors = 'all' | 'ends' | 'none';

/**
 * Translate a root connection field (its nodes, its connection type and arguments) into one engine request: the
 * selection under `nodes` and `edges { node }`, through fragments, inline fragments and `@skip`/`@include`, at every
 * depth; a selected `totalCount` asks for `count` where it is allowed. See translateLevel for nested selections.
 */
export function connectionRequest(
  collect: FieldCollector,
  variables: GraphQLResolveInfo['variableValues'],
  fieldNodes: readonly FieldNode[],
  returnType: GraphQLOutputType,
  args: ConnectionArgs,
  allowCount: boolean,
  facetLimit = 10,
): TreeRequest {
  const state = freshState(collect, variables);
  const backward = writeListArguments(args, '', state.query);
  if (args.search != null) state.query.search = args.search;
  const connection = getNamedType(returnType) as GraphQLObjectType;
  const parts = connectionParts(collect, connection, setsOf(fieldNodes));
  if (parts.totalCount && allowCount) state.query.count = 'true';
  const facets = facetsParameter(collect, variables, connection, parts.facetSets, facetLimit);
  if (facets !== undefined) state.query.facets = facets;
  const { text, aliases } = translateLevel(state, parts.node, parts.nodeSets, '', '');
  state.query.fields = text;
  // Frozen: one request may be sent by many executions of a kept document (schema.ts, translations).
  Object.freeze(state.query);
  return { ...finish(state, aliases), backward, edgeCursors: parts.edgeCursors };
}

/** Translate the selection of one object of `type` (Relay's `node`) into the `fields` and nested parameters. */
export function objectRequest(
  collect: FieldCollector,
  variables: GraphQLResolveInfo['variableValues'],
  fieldNodes: readonly FieldNode[],
  type: GraphQLObjectType,
): TreeRequest {
  const state = freshState(collect, variables);
  const { text, aliases } = translateLevel(state, type, setsOf(fieldNodes), '', '');
  state.query.fields = text;
  return { ...finish(state, aliases), backward: false, edgeCursors: false };
}

function freshState(collect: FieldCollector, variables: GraphQLResolveInfo['variableValues']): State {
  return { collect, variables, query: {}, backwardLists: [], lists: new Map(), nestedCursors: 'none' };
}

function finish(state: State, aliases: AliasLevel | undefined): Omit<TreeRequest, 'backward' | 'edgeCursors'> {
  const { query, backwardLists, lists, nestedCursors } = state;
  const request = { query, backwardLists, lists, nestedCursors };
  return aliases === undefined ? request : { ...request, aliases };
}

/** One level being translated: its names, what its items hold, and the aliases it had to give. */
interface Level {
  readonly level: NodeLevel;
  readonly groups: ReadonlyMap<string, readonly FieldNode[]>;
  /** Item keys the level's items hold for something else: the key, the picked values' names and keys. */
  readonly reserved: Set<string>;
  readonly keys: Map<string, string>;
  readonly children: Map<string, { many: boolean; level: AliasLevel }>;
}

/** A selectable relation selected under one response key. */
interface Nested {
  readonly key: string;
  readonly field: GraphQLField<unknown, unknown>;
  readonly nodes: readonly FieldNode[];
}

/**
 * Translate the selection of one level (a node type's fields, merged by response key as graphql-js executes them)
 * into `fields` text. Values give their `fields` names; a selectable relation gives `key:relation(…)` (the key
 * omitted when it is the relation's name), its nested list's arguments the parameters `<path>.<name>`, where the
 * path is the dotted item keys from the root. A response key the level's items need for something else (the key,
 * a picked field, a name `fields` knows) is fetched under an internal alias, which `aliases` records.
 */
function translateLevel(
  state: State,
  type: GraphQLObjectType,
  sets: readonly (SelectionSetNode | undefined)[],
  path: string,
  name: string,
): { readonly text: string; readonly aliases?: AliasLevel } {
  const level = levelOf(type) as NodeLevel;
  const groups = state.collect(type, sets);
  const fields = type.getFields();
  const picked = new Set<string>();
  const nested: Nested[] = [];
  const reserved = new Set<string>(level.key);
  for (const [key, nodes] of groups) {
    const fieldName = nodes[0]!.name.value;
    // Under `nodes` and `edges { node }` one key may name different fields: harmless for values, which items hold
    // under their own keys, but a relation's result is held under the response key itself.
    const names = nodes.length === 1 ? [fieldName] : [...new Set(nodes.map((n) => n.name.value))];
    for (const one of names) {
      const field = fields[one];
      const source = sourceOf(field);
      if (source?.kind === 'value') {
        picked.add(source.source);
        reserved.add(source.source).add(source.itemKey);
      } else if (source && source.kind !== 'globalId') {
        if (names.length > 1) throw selectionConflict(join(name, key));
        nested.push({ key, field: field!, nodes });
      }
    }
  }
  const parts = [...picked];
  if (nested.length > 0) {
    const at: Level = { level, groups, reserved, keys: new Map(), children: new Map() };
    for (const entry of nested) parts.push(nestedPart(state, at, entry, path, name));
    if (at.keys.size > 0 || at.children.size > 0)
      return {
        text: parts.join(','),
        aliases: at.keys.size === 0 ? { children: at.children } : { keys: at.keys, children: at.children },
      };
  }
  // A level with nothing picked still needs one name: the key's, which its items carry anyway.
  return { text: parts.length === 0 ? level.key[0]! : parts.join(',') };
}

/** Translate one selected relation: `key:relation(…)`, and for a list its parameters. */
function nestedPart(state: State, at: Level, { key, field, nodes }: Nested, path: string, name: string): string {
  const source = sourceOf(field) as Extract<NodeFieldSource, { relation: string }>;
  const own = key === source.relation;
  const clashes = at.reserved.has(key) || key.startsWith('__') || (!own && at.level.names.has(key));
  const itemKey = clashes ? freeAlias(at.level, at.groups, at.keys) : key;
  if (itemKey !== key) at.keys.set(key, itemKey);
  const childPath = join(path, itemKey);
  const childName = join(name, key);
  const sets = setsOf(nodes);
  let child: { readonly text: string; readonly aliases?: AliasLevel };
  if (source.kind === 'one')
    child = translateLevel(state, getNamedType(field.type) as GraphQLObjectType, sets, childPath, childName);
  else {
    const args = sameArguments(state.variables, field, nodes, childName);
    const backward = writeListArguments(args, `${childPath}.`, state.query);
    state.lists.set(childPath, { name: childName, backward });
    if (backward) state.backwardLists.push(childPath);
    const conn = connectionParts(state.collect, getNamedType(field.type) as GraphQLObjectType, sets);
    if (conn.totalCount && source.allowCount) state.query[`${childPath}.count`] = 'true';
    if (conn.edgeCursors) state.nestedCursors = 'all';
    else if (conn.pageInfo && state.nestedCursors === 'none') state.nestedCursors = 'ends';
    child = translateLevel(state, conn.node, conn.nodeSets, childPath, childName);
  }
  if (child.aliases) at.children.set(itemKey, { many: source.kind === 'many', level: child.aliases });
  return `${itemKey === source.relation ? '' : `${itemKey}:`}${source.relation}(${child.text})`;
}

/**
 * The parts of a connection's selection: the node type, the selection sets of its nodes, totalCount, and whether
 * an edge's `cursor` is selected (under any alias, through fragments, as the execution's variables include it).
 */
function connectionParts(
  collect: FieldCollector,
  connection: GraphQLObjectType,
  sets: readonly (SelectionSetNode | undefined)[],
): {
  node: GraphQLObjectType;
  nodeSets: Sets;
  totalCount: boolean;
  edgeCursors: boolean;
  pageInfo: boolean;
  facetSets: Sets;
} {
  const fields = connection.getFields();
  const node = getNamedType(fields.nodes!.type) as GraphQLObjectType;
  const edge = getNamedType(fields.edges!.type) as GraphQLObjectType;
  const nodeSets: Sets = [];
  const facetSets: Sets = [];
  let totalCount = false;
  let edgeCursors = false;
  let pageInfo = false;
  for (const nodes of collect(connection, sets).values()) {
    const fieldName = nodes[0]!.name.value;
    if (fieldName === 'nodes') nodeSets.push(...setsOf(nodes));
    else if (fieldName === 'totalCount') totalCount = true;
    else if (fieldName === 'pageInfo') pageInfo = true;
    else if (fieldName === 'facets') facetSets.push(...setsOf(nodes));
    else if (fieldName === 'edges')
      for (const edgeNodes of collect(edge, setsOf(nodes)).values()) {
        if (edgeNodes[0]!.name.value === 'node') nodeSets.push(...setsOf(edgeNodes));
        // Any node of the key: a server that skips validation may merge `cursor` with another field.
        if (edgeNodes.some((n) => n.name.value === 'cursor')) edgeCursors = true;
      }
  }
  return { node, nodeSets, totalCount, edgeCursors, pageInfo, facetSets };
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

type Sets = (SelectionSetNode | undefined)[];

function setsOf(nodes: readonly FieldNode[]): Sets {
  return nodes.map((n) => n.selectionSet);
}
