import { type GraphQLSchema, printSchema as printGraphQLSchema } from 'graphql';

export { abortOnClose } from '../http/handler.ts';
export { DEFAULT_GRAPHQL_LIMITS, type GraphQLLimits } from './budget.ts';
export { DEFAULT_DOCUMENT_CACHE, type DocumentCacheOptions } from './document-cache.ts';
export {
  DEFAULT_DOCUMENT_LIMITS,
  type DocumentLimitOptions,
  type DocumentLimits,
  documentLimits,
} from './document-limits.ts';
export type { GraphQLLimitName } from './limit-error.ts';
export {
  type GraphQLEndpoint,
  type GraphQLEngine,
  type GraphQLListScope,
  type GraphQLSchemaOptions,
  graphqlSchema,
} from './schema.ts';

/**
 * Print a schema built by graphqlSchema() as SDL, for clients, code generators and reviews.
 *
 * @example printSchema(graphqlSchema({ endpoints })) // "type Query {\n  books(filter: String, …): BookConnection!\n}…"
 */
export function printSchema(schema: GraphQLSchema): string {
  return printGraphQLSchema(schema);
}
