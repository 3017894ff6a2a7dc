import {
  type GraphQLField,
  type GraphQLLeafType,
  GraphQLNonNull,
  type GraphQLObjectType,
  GraphQLString,
  isLeafType,
} from 'graphql';
import { asString, type ItemValue, itemValueOf } from './item-value.ts';
import { levelOf, sourceOf } from './node-source.ts';

/**
 * The leaves of a compiled selection (compiled-shape.ts): scalar values completed as graphql-js completes them, and
 * the FAULT that hands an answer back to graphql-js when one is not what the writer expects.
 */

/** Thrown while writing an answer that graphql-js must complete itself (it reports the error exactly). */
export const FAULT: unique symbol = Symbol('listql.compiledFault');

/** A list item as the engine returns it. */
export type Item = Record<string, unknown>;

/**
 * A node's value field whose resolver itemValueResolver() built (the bulk of a tree's fields): what it reads, and how
 * its value completes (the field's non-null, its scalar's output coercion).
 */
export interface ItemLeaf extends ItemValue {
  readonly nonNull: boolean;
  readonly coerce: (value: unknown) => unknown;
}

/** The ItemLeaf of a node's field, or undefined for a field written by its own writer. */
export function itemLeaf(parent: GraphQLObjectType, field: GraphQLField<unknown, unknown>): ItemLeaf | undefined {
  const read = itemValueOf(field.resolve);
  // Only the value fields of a listql node type (not its global id, nor a field a server added).
  if (!read || levelOf(parent) === undefined || sourceOf(field)?.kind !== 'value') return undefined;
  const nonNull = field.type instanceof GraphQLNonNull;
  const named = field.type instanceof GraphQLNonNull ? field.type.ofType : field.type;
  // A String field's text is its own output; another scalar's text would be coerced again: written the long way.
  if (!isLeafType(named) || (read.text && named !== GraphQLString)) return undefined;
  return { ...read, nonNull, coerce: coercionOf(named) };
}

/**
 * Write an ItemLeaf's value from the item, exactly as its resolver and graphql-js's completion would: a String
 * field's text as asString writes it, another value as it is, through the scalar's coercion; null where there is
 * none (FAULT for a non-null field, or a value the coercion refuses).
 */
export function leafValue(leaf: ItemLeaf, item: Item): unknown {
  const raw = item[leaf.itemKey];
  if (leaf.text) {
    if (typeof raw === 'string') return raw;
    const text = asString(raw);
    if (text !== null) return text;
  } else if (raw !== null && raw !== undefined) {
    if (raw instanceof Error || typeof (raw as { then?: unknown }).then === 'function') throw FAULT;
    const out = leaf.coerce(raw);
    if (out === null || out === undefined) throw FAULT;
    return out;
  }
  if (leaf.nonNull) throw FAULT;
  return null;
}

/** A leaf value through its type's output coercion; null or undefined out is for graphql-js to report. */
export function leaf(type: GraphQLLeafType): (value: unknown) => unknown {
  const coerce = coercionOf(type);
  return (value) => {
    const out = coerce(value);
    if (out === null || out === undefined) throw FAULT;
    return out;
  };
}

/** A leaf type's output coercion (`coerceOutputValue` in graphql 17, `serialize` in 16). */
function coercionOf(type: GraphQLLeafType): (value: unknown) => unknown {
  return ((type as { coerceOutputValue?: (v: unknown) => unknown }).coerceOutputValue ?? type.serialize).bind(type);
}

/** Give an answer's object its key's value, `__proto__` as an own property (as graphql-js's answers hold it). */
export function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
