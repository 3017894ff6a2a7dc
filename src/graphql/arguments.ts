import type { EdgesPage } from '../engine/page/edges.ts';
import { invalidParameter } from '../errors.ts';
import type { ConnectionValue } from './connection.ts';
import type { NodeSources } from './node-type.ts';
import type { ConnectionSelection } from './selection.ts';

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

/** One engine request of a connection field: its query parameters, and whether it pages backward. */
export interface ListRequest {
  readonly query: Record<string, string>;
  readonly backward: boolean;
}

/** Tell whether a connection field's arguments page backward (`last` or `before` given). */
export function pagesBackward(args: ConnectionArgs): boolean {
  return args.last != null || args.before != null;
}

/**
 * Translate a connection field's arguments and selection into the engine request: `first`/`last` become `limit`,
 * `after`/`before` become `cursor`, the selected node fields become `fields`, a selected `totalCount` becomes
 * `count`. One request pages one way: forward arguments (`first`, `after`, `offset`) beside backward ones (`last`,
 * `before`) are `invalid_parameter`, named after the argument that does not fit.
 */
export function listRequest(
  args: ConnectionArgs,
  selection: ConnectionSelection,
  node: NodeSources,
  allowCount: boolean,
): ListRequest {
  const backward = pagesBackward(args);
  if (backward) checkBackward(args);
  const query: Record<string, string> = {};
  if (args.filter != null) query.filter = args.filter;
  if (args.sort != null) query.sort = args.sort;
  const limit = backward ? args.last : args.first;
  if (limit != null) query.limit = String(limit);
  const cursor = backward ? args.before : args.after;
  if (cursor != null) query.cursor = cursor;
  if (args.offset != null) query.offset = String(args.offset);
  if (args.search != null) query.search = args.search;
  const picked = new Set<string>();
  for (const name of selection.nodeFields) {
    const source = node.sources.get(name);
    if (source !== undefined) picked.add(source);
  }
  // A selection with no node field still needs one name for `fields`: the primary key's, which every item carries.
  if (picked.size === 0 && node.keyName !== undefined) picked.add(node.keyName);
  if (picked.size > 0) query.fields = [...picked].join(',');
  if (selection.totalCount && allowCount) query.count = 'true';
  return { query, backward };
}

/** Say where an engine page stands, for `pageInfo`. */
export function connectionValue(result: EdgesPage, args: ConnectionArgs, backward: boolean): ConnectionValue {
  if (backward) return { result, hasPrevious: result.page.page.hasMore, hasNext: args.before != null };
  return { result, hasPrevious: args.after != null || (args.offset ?? 0) > 0, hasNext: result.page.page.hasMore };
}

function checkBackward(args: ConnectionArgs): void {
  if (args.first != null && args.last != null)
    throw invalidParameter('last', 'first and last cannot be combined: first pages forward, last pages backward');
  if (args.first != null)
    throw invalidParameter('before', 'before cannot be combined with first: page backward with last and before');
  if (args.after != null)
    throw invalidParameter('after', 'after cannot be combined with last or before: page backward with before');
  if (args.offset != null)
    throw invalidParameter('offset', 'offset pages forward only: it cannot be combined with last or before');
}
