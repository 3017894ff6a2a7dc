import { GraphQLError } from 'graphql';
import { isListError, type ListError } from '../errors.ts';

/** The connection argument that carries each list parameter, where the names differ, per paging direction. */
const FORWARD: Readonly<Record<string, string>> = { limit: 'first', cursor: 'after' };
const BACKWARD: Readonly<Record<string, string>> = { limit: 'last', cursor: 'before' };

/** The nested lists of a request, by dotted path: their path of response keys, and their direction. */
export type NestedLists = ReadonlyMap<string, { readonly name: string; readonly backward: boolean }>;

/**
 * Turn what a connection resolver caught into the GraphQL error a client sees: a client-facing ListError keeps its
 * code, message and position, with `parameter` named after the argument (`first` or, `backward`, `last` for limit;
 * `after` or `before` for cursor), and for a nested list's parameter after its path of response keys
 * (`best.first`); a GraphQLError thrown by the application's scope function passes as it is; anything else is
 * `internal_error` with no detail, and is handed to `onInternalError`.
 */
export function toGraphQLError(
  err: unknown,
  onInternalError: (err: unknown) => void,
  backward = false,
  lists?: NestedLists,
): GraphQLError {
  if (err instanceof GraphQLError) return err;
  if (isListError(err) && err.status !== 500) return publicError(err, backward, lists);
  onInternalError(err);
  return new GraphQLError('internal server error', { extensions: { code: 'internal_error' } });
}

function publicError(err: ListError, backward: boolean, lists: NestedLists | undefined): GraphQLError {
  const extensions: Record<string, unknown> = { code: err.code };
  if (err.parameter !== undefined) extensions.parameter = argumentOf(err.parameter, backward, lists);
  if (err.position !== undefined) extensions.position = { ...err.position };
  // `overloaded`: the seconds a client should wait before sending the document again (HTTP's Retry-After).
  if (err.retryAfter !== undefined) extensions.retryAfter = err.retryAfter;
  return new GraphQLError(err.message, { extensions });
}

function argumentOf(parameter: string, backward: boolean, lists: NestedLists | undefined): string {
  const dot = parameter.lastIndexOf('.');
  if (dot < 0) return (backward ? BACKWARD : FORWARD)[parameter] ?? parameter;
  const list = lists?.get(parameter.slice(0, dot));
  const name = parameter.slice(dot + 1);
  const shown = (list?.backward ? BACKWARD : FORWARD)[name] ?? name;
  return `${list?.name ?? parameter.slice(0, dot)}.${shown}`;
}
