// The public contract of listql: re-exports only.
export type { BoundField, BoundRelation, BoundSchema, FieldKind, Operator } from './bind/types.ts';
export {
  createEngine,
  type Engine,
  type EngineConfig,
  type EngineDescription,
  execute,
  executeCount,
  type FieldDescription,
  type FromOptions,
  type IndexAdvice,
  type IndexColumn,
  type Item,
  type IterateOptions,
  type ListContext,
  type Page,
  type PageInfo,
  type QueryInput,
  type RelationDescription,
  type SchemaDescription,
  type ScopedEngine,
  type SearchCallback,
} from './engine/index.ts';
export {
  ERROR_STATUS,
  type ErrorCode,
  isListError,
  ListError,
  type ListErrorJSON,
  type ListErrorOptions,
  type Position,
} from './errors.ts';
export { type ErrorResponse, errorResponse, type InternalErrorJSON, writeError } from './http/errors.ts';
export { fromQueryString } from './http/query-string.ts';
export { DEFAULT_LIMITS, DEFAULT_PAGING, type Limits, MAX_OPEN_PARENTHESES } from './limits.ts';
export { type OpenAPIOptions, toOpenAPI } from './openapi/to-openapi.ts';
export {
  type AnyQueryBuilder,
  type ApplyOptions,
  apply,
  escapeLike,
  type FilterConditions,
  prepareFilters,
} from './plan/index.ts';
export {
  type FieldOption,
  filterable,
  Policy,
  schema,
  sortable,
} from './policy/index.ts';
export type {
  FilterNode,
  Literal,
  ParsedQuery,
  Path,
  SortTerm,
  Span,
} from './syntax/ast.ts';
export { type ParseOptions, parseFilter, parseHTTP, parseSort, type QueryValues } from './syntax/index.ts';
