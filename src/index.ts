// The public contract of listql: re-exports only.

export {
  type AdmissionOptions,
  type CursorOptions,
  type CursorScope,
  createEngine,
  type Engine,
  type EngineConfig,
  type EngineDescription,
  type ExecuteOptions,
  type ExplainedLevel,
  type ExplainedStatement,
  type Explanation,
  execute,
  executeCount,
  type FieldDescription,
  type FromOptions,
  type IndexAdvice,
  type IndexColumn,
  type Item,
  type ItemDescription,
  type ItemPropertyDescription,
  type IterateOptions,
  type ListContext,
  type ListItem,
  type ListParameters,
  type NestedItems,
  type NestedPage,
  type NestedPageInfo,
  type Page,
  type PageInfo,
  type PolicyEntity,
  type PolicyItem,
  type QueryInput,
  type RelationDescription,
  type RelationSelectDescription,
  type ReplicaFallback,
  type ReplicaHealthEvent,
  type SchemaDescription,
  type ScopedEngine,
  type SearchCallback,
  type SelectedItem,
  type SelectedRequest,
  type SelectedScope,
  type Selection,
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
export { DEFAULT_LIMITS, DEFAULT_PAGING, type Limits, MAX_OPEN_PARENTHESES } from './limits.ts';
export {
  type OpenAPIDocument,
  type OpenAPIEndpoint,
  type OpenAPIInfo,
  type OpenAPIOptions,
  toOpenAPI,
} from './openapi/to-openapi.ts';
export {
  type AnyQueryBuilder,
  type ApplyOptions,
  apply,
  escapeLike,
  type FilterConditions,
  prepareFilters,
} from './plan/index.ts';
export type { BoundField, BoundRelation, BoundSchema, BoundSelection, FieldKind } from './policy/bound-schema.ts';
export {
  type ExposedFields,
  type ExposedRelations,
  type FieldOption,
  type FieldOptionFor,
  filterable,
  type NestedPolicy,
  type OperatorsFor,
  Policy,
  PublicNames,
  type RelationArgument,
  type RelationKey,
  type RelationOptions,
  type RelationSelectableOption,
  type RelationSelectOptions,
  type RelationType,
  type RelationTypes,
  type ScalarKey,
  schema,
  selectable,
  sortable,
  type WithPublicNames,
} from './policy/index.ts';
export type { Operator } from './policy/options.ts';
export type {
  FilterNode,
  Literal,
  ParsedQuery,
  Path,
  SortTerm,
  Span,
} from './syntax/ast.ts';
export type { FieldsObject } from './syntax/fields-object.ts';
export { type ParseOptions, parseFilter, parseHTTP, parseSort, type QueryValues } from './syntax/index.ts';
export { fromQueryString } from './syntax/query-string.ts';
