/**
 * `listql/client`: typed list requests for front ends, from the type of the server's policy (docs/client.md).
 * Imports nothing of listql at run time, uses no Node API and has no dependency: a few kilobytes in a browser bundle.
 */
export {
  type CallOptions,
  type FetchLike,
  type ItemsOf,
  type ListClient,
  ListClientError,
  type ListClientOptions,
  listClient,
  type ResponseLike,
} from './fetch.ts';
export type { Filter, FilterBuilder, Skip } from './filter.ts';
export type { ItemOf, Json, NestedPath, PolicyAt } from './item-types.ts';
export { decimal } from './literal.ts';
export { client, ListRequest, NestedList } from './request.ts';
export type {
  ComparisonOperator,
  Decimal,
  FacetName,
  FilterPath,
  LiteralValue,
  Operand,
  OperandsFor,
  OperatorAt,
  QuantifiedPolicy,
  QuantifierPath,
  SortKey,
  SortModifiers,
  SortPath,
  ValueOperator,
} from './types.ts';
