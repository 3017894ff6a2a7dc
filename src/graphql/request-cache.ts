import type { FieldNode, GraphQLResolveInfo } from 'graphql';
import { mapFor, setBounded } from '../bounded-map.ts';

/** Variable-value combinations remembered per node: a client's few variants (a cursor, a filter) stay warm. */
const PER_NODE = 16;

/** The same derivation for one node: its value per variable-values key, and the field nodes it was derived from. */
interface Remembered<T> {
  readonly nodes: readonly FieldNode[];
  readonly value: T;
}

const NO_NODES: readonly FieldNode[] = [];

/** The variable values' key of each execution, by the execution's own values object. */
const keys = new WeakMap<object, string | null>();

/**
 * Remember what is derived from a document's nodes and an execution's variable values alone (a root field's engine
 * request, a document's weight), across executions. A document kept by a document cache (`documentLimits()`'s or a
 * server's own) hands every request that sends its text the very same nodes, so a repeated request skips the
 * derivation; a document parsed for one request is forgotten with it (the keys are weak). Within one execution the
 * value is derived once, whatever the variables hold; `arg` must follow from the nodes and variables (a field's
 * arguments do). `anchor` names the node the value belongs to; `nodes` (a root field's merged field nodes) must be
 * the same too. A value `keep` refuses is remembered for its own execution only; a derivation that throws is not
 * remembered.
 */
export function acrossExecutions<A, T>(
  derive: (arg: A, info: GraphQLResolveInfo) => T,
  anchor: (info: GraphQLResolveInfo) => object,
  nodes: (info: GraphQLResolveInfo) => readonly FieldNode[] = () => NO_NODES,
  keep: (value: T) => boolean = () => true,
): (arg: A, info: GraphQLResolveInfo) => T {
  const byNode = new WeakMap<object, Map<string, Remembered<T>>>();
  const byExecution = new WeakMap<object, WeakMap<object, T>>();
  return (arg, info) => {
    const node = anchor(info);
    const values = info.variableValues as object | null | undefined;
    if (!values) return derive(arg, info);
    let own = byExecution.get(node);
    if (!own) {
      own = new WeakMap();
      byExecution.set(node, own);
    }
    const done = own.get(values);
    if (done !== undefined) return done;
    const key = variablesKey(values);
    const merged = nodes(info);
    const kept = key === undefined ? undefined : byNode.get(node);
    const hit = key === undefined ? undefined : kept?.get(key);
    let value: T;
    if (hit && sameNodes(hit.nodes, merged)) value = hit.value;
    else {
      value = derive(arg, info);
      if (key !== undefined && keep(value))
        setBounded(kept ?? mapFor(byNode, node), key, { nodes: merged, value }, PER_NODE);
    }
    own.set(values, value);
    return value;
  };
}

function sameNodes(a: readonly FieldNode[], b: readonly FieldNode[]): boolean {
  return a.length === b.length && a.every((node, i) => node === b[i]);
}

/**
 * The key of an execution's variable values: their JSON, when JSON states them exactly (null, booleans, finite
 * numbers, strings, arrays and plain objects of them); undefined otherwise (a custom scalar's object), and then
 * nothing derived from them is kept beyond their execution. graphql-js 17 holds the coerced values under `coerced`,
 * graphql-js 16 passes them as they are.
 */
export function variablesKey(variableValues: object): string | undefined {
  let key = keys.get(variableValues);
  if (key === undefined) {
    const v17 = variableValues as { coerced?: unknown; sources?: unknown };
    const values =
      typeof v17.sources === 'object' && typeof v17.coerced === 'object' && v17.coerced !== null
        ? v17.coerced
        : variableValues;
    key = jsonKey(values) ?? null;
    keys.set(variableValues, key);
  }
  return key ?? undefined;
}

/**
 * Give `copy` (a fresh copy of `variableValues` for another execution) the key of `variableValues` without stating
 * it again: the same values have the same key.
 */
export function shareVariablesKey(variableValues: object, copy: object): void {
  keys.set(copy, variablesKey(variableValues) ?? null);
}

/** `value`'s JSON when JSON states it exactly (see variablesKey); undefined otherwise. */
export function jsonKey(value: unknown): string | undefined {
  return plainJSON(value, 0) ? JSON.stringify(value) : undefined;
}

/** Whether JSON.stringify states `value` exactly (and it nests at most 32 levels). */
function plainJSON(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object' || depth > 32) return false;
  if (Array.isArray(value)) return value.every((item) => plainJSON(item, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  // A value of undefined is left out by JSON, as graphql-js leaves out a variable that was not given.
  return Object.values(value).every((item) => item === undefined || plainJSON(item, depth + 1));
}
