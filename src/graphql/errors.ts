import { GraphQLError } from 'graphql';
import { isListError, type ListError } from '../errors.ts';

/** The connection argument that carries each list parameter, where the names differ, per paging direction. */
const FORWARD: Readonly<Record<string, string>> = { limit: 'first', cursor: 'after' };
const BACKWARD: Readonly<Record<string, string>> = { limit: 'last', cursor: 'before' };

/**
 * Turn what a connection resolver caught into the GraphQL error a client sees: a client-facing ListError keeps its
 * code, message and position, with `parameter` named after the argument (`first` or, `backward`, `last` for limit;
 * `after` or `before` for cursor); a GraphQLError thrown by the application's scope function passes as it is;
 * anything else is `internal_error` with no detail, and is handed to `onInternalError`.
 */
export function toGraphQLError(err: unknown, onInternalError: (err: unknown) => void, backward = false): GraphQLError {
  if (err instanceof GraphQLError) return err;
  if (isListError(err) && err.status !== 500) return publicError(err, backward ? BACKWARD : FORWARD);
  onInternalError(err);
  return new GraphQLError('internal server error', { extensions: { code: 'internal_error' } });
}

function publicError(err: ListError, argumentOf: Readonly<Record<string, string>>): GraphQLError {
  const extensions: Record<string, unknown> = { code: err.code };
  if (err.parameter !== undefined) extensions.parameter = argumentOf[err.parameter] ?? err.parameter;
  if (err.position !== undefined) extensions.position = { ...err.position };
  return new GraphQLError(err.message, { extensions });
}
