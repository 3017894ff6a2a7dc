import { GraphQLError, type GraphQLErrorOptions } from 'graphql';

/** The name of a bound on a whole GraphQL document, as errors report it in `extensions.limit`. */
export type GraphQLLimitName =
  | 'maxFields'
  | 'maxStatements'
  | 'maxRows'
  | 'maxSubqueries'
  | 'maxBytes'
  | 'maxTokens'
  | 'maxDepth';

/**
 * Build the error of a document over one of its bounds: `limit_exceeded`, as the REST cost budget says it, with the
 * bound's name in `extensions.limit`; `place` points into the document (AST nodes, or source positions).
 */
export function documentLimitError(
  limit: GraphQLLimitName,
  message: string,
  place?: Pick<GraphQLErrorOptions, 'nodes' | 'source' | 'positions'>,
): GraphQLError {
  return new GraphQLError(message, { ...place, extensions: { code: 'limit_exceeded', limit } });
}
