import type { GraphQLField, GraphQLInterfaceType, GraphQLObjectType } from 'graphql';
import type { FieldDescription, RelationDescription } from '../engine/describe/endpoint.ts';
import type { ItemDescription } from '../engine/describe/item.ts';
import type { TypeNames } from './type-names.ts';

/** The field extension under which a node type's field says what it reads from the engine's items. */
const SOURCE_EXTENSION = 'listqlSource';

/** The type extension under which a node type says which level of a request it is. */
const LEVEL_EXTENSION = 'listqlLevel';

/** What a node type is built from: a level clients may select (an endpoint, or a selectable relation's schema). */
export interface LevelDescription {
  readonly fields: readonly FieldDescription[];
  readonly relations: readonly RelationDescription[];
  readonly selectable: readonly string[];
  readonly key: readonly string[];
  readonly item: ItemDescription;
}

/** What every node type of one schema shares: its type names, and the Relay `Node` interface when enabled. */
export interface NodeTypes {
  readonly names: TypeNames;
  /** Set by `relay: true`: node types carry a global `id` (a field named `id` becomes `rowId`). */
  readonly relay?: { readonly node: GraphQLInterfaceType };
}

/** What the selection translator needs of a level: its key and every name `fields` knows there. */
export function nodeLevel(level: LevelDescription): NodeLevel {
  return { key: level.key, names: new Set([...level.selectable, ...level.relations.map((r) => r.name)]) };
}

/** A level of a tree request: an endpoint's items, or the items of a selectable relation. */
export interface NodeLevel {
  /** The primary key's names: every item carries them, so they are what `fields` holds when nothing is picked. */
  readonly key: readonly string[];
  /** Every name `fields` knows at this level (selectable names and relations): internal aliases avoid them. */
  readonly names: ReadonlySet<string>;
}

/**
 * What one field of a node type reads: a value of the item (a field, or a relation's key, fetched by the `fields`
 * name `source` and held under `itemKey`), the Relay global id (made from the key), or a selectable relation, whose
 * nested items the root request fetches under the field's response key.
 */
export type NodeFieldSource =
  | { readonly kind: 'value'; readonly source: string; readonly itemKey: string }
  | { readonly kind: 'globalId' }
  | { readonly kind: 'one'; readonly relation: string }
  | {
      readonly kind: 'many';
      readonly relation: string;
      /** `totalCount` is a field of the connection: the relation allows `count`. */
      readonly allowCount: boolean;
    };

/** The extensions of a node type's field that say what it reads. */
export function sourceExtension(source: NodeFieldSource): Record<string, NodeFieldSource> {
  return { [SOURCE_EXTENSION]: source };
}

/** The extensions of a node type that say which level it is. */
export function levelExtension(level: NodeLevel): Record<string, NodeLevel> {
  return { [LEVEL_EXTENSION]: level };
}

/** Read which level a node type is; undefined for a type that is not a listql node type. */
export function levelOf(type: GraphQLObjectType): NodeLevel | undefined {
  return type.extensions?.[LEVEL_EXTENSION] as NodeLevel | undefined;
}

/** Read what a field of a node type reads; undefined for a field that is not listql's (`__typename`). */
export function sourceOf(field: GraphQLField<unknown, unknown> | undefined): NodeFieldSource | undefined {
  return field?.extensions?.[SOURCE_EXTENSION] as NodeFieldSource | undefined;
}

/**
 * The key under which the root resolver tells a level's nested field resolvers which item key holds their
 * response key's value, when it had to fetch it under another (see aliases.ts).
 */
export const ITEM_KEYS: unique symbol = Symbol('listql.graphqlItemKeys');

/** Read the value a nested relation field resolves from: the item's entry for this response key. */
export function nestedValue(item: Record<string | symbol, unknown>, responseKey: string): unknown {
  const keys = item[ITEM_KEYS] as ReadonlyMap<string, string> | undefined;
  return item[keys?.get(responseKey) ?? responseKey];
}
