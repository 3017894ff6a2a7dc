import { type GraphQLSchema, printSchema as printGraphQLSchema } from 'graphql';

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
