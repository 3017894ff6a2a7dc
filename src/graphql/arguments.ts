import { type FieldNode, type GraphQLField, type GraphQLResolveInfo, getArgumentValues } from 'graphql';
import { NESTED_CURSORS, type NestedPage } from '../engine/index.ts';
import type { EdgesPage } from '../engine/page/edges.ts';
import { invalidParameter } from '../errors.ts';
import type { ConnectionValue } from './connection.ts';

/** The arguments of a connection field as graphql-js passes them. */
export interface ConnectionArgs {
  readonly filter?: string | null;
  readonly sort?: string | null;
  readonly first?: number | null;
  readonly after?: string | null;
  readonly last?: number | null;
  readonly before?: string | null;
  readonly offset?: number | null;
  readonly search?: string | null;
}

/** Tell whether a connection field's arguments page backward (`last` or `before` given). */
export function pagesBackward(args: ConnectionArgs): boolean {
  return args.last != null || args.before != null;
}

/**
 * Write a connection field's list arguments as engine parameters into `query`, each name after `prefix` (empty at
 * the top, `best.` for the nested list under the response key `best`): `first`/`last` become `limit`,
 * `after`/`before` become `cursor`. One list pages one way: forward arguments (`first`, `after`, `offset`) beside
 * backward ones (`last`, `before`) are `invalid_parameter`, named after the argument that does not fit. Returns
 * whether the list pages backward.
 */
export function writeListArguments(args: ConnectionArgs, prefix: string, query: Record<string, string>): boolean {
  const backward = pagesBackward(args);
  if (backward) checkBackward(args, prefix);
  if (args.filter != null) query[`${prefix}filter`] = args.filter;
  if (args.sort != null) query[`${prefix}sort`] = args.sort;
  const limit = backward ? args.last : args.first;
  if (limit != null) query[`${prefix}limit`] = String(limit);
  const cursor = backward ? args.before : args.after;
  if (cursor != null) query[`${prefix}cursor`] = cursor;
  if (args.offset != null) query[`${prefix}offset`] = String(args.offset);
  return backward;
}

/** Say where an engine page stands, for `pageInfo`. */
export function connectionValue(result: EdgesPage, args: ConnectionArgs, backward: boolean): ConnectionValue {
  if (backward) return { result, hasPrevious: result.page.page.hasMore, hasNext: args.before != null };
  return { result, hasPrevious: args.after != null || (args.offset ?? 0) > 0, hasNext: result.page.page.hasMore };
}

/**
 * The connection value of one parent's nested page (as the root request fetched it), with the per-item cursors the
 * engine put beside it for edges; null when the item holds no page.
 */
export function nestedConnectionValue(value: unknown, args: ConnectionArgs): ConnectionValue | null {
  if (typeof value !== 'object' || value === null) return null;
  const page = value as NestedPage;
  return connectionValue({ page, cursors: page[NESTED_CURSORS] ?? [] }, args, pagesBackward(args));
}

function checkBackward(args: ConnectionArgs, prefix: string): void {
  if (args.first != null && args.last != null)
    throw invalidParameter(
      `${prefix}last`,
      'first and last cannot be combined: first pages forward, last pages backward',
    );
  if (args.first != null)
    throw invalidParameter(
      `${prefix}before`,
      'before cannot be combined with first: page backward with last and before',
    );
  if (args.after != null)
    throw invalidParameter(`${prefix}after`, 'after cannot be combined with last or before: page backward with before');
  if (args.offset != null)
    throw invalidParameter(`${prefix}offset`, 'offset pages forward only: it cannot be combined with last or before');
}

/**
 * The arguments of a nested connection selected under one response key. The same key under `nodes` and under
 * `edges { node }` reads one item entry, so it must be one selection: different arguments are `invalid_parameter`.
 */
export function sameArguments(
  variables: GraphQLResolveInfo['variableValues'],
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  name: string,
): ConnectionArgs {
  const all = nodes.map((n) => getArgumentValues(field, n, variables) as ConnectionArgs);
  const first = JSON.stringify(all[0]);
  if (all.some((args) => JSON.stringify(args) !== first)) throw selectionConflict(name);
  return all[0]!;
}

/** The error of one response key selected twice with different fields or arguments. */
export function selectionConflict(name: string): Error {
  return invalidParameter(
    name,
    `'${name}' is selected twice with different fields or arguments (under nodes and edges): give one an alias`,
  );
}
