export type { CursorOptions, CursorScope } from '../keyset/cursor-seal.ts';
export type { ReplicaFallback, ReplicaHealthEvent } from '../orm/replicas.ts';
export type { AdmissionOptions } from './admission-settings.ts';
export type { EngineConfig, ListContext, SearchCallback } from './config.ts';
export type {
  EngineDescription,
  FieldDescription,
  RelationDescription,
  RelationSelectDescription,
  SchemaDescription,
} from './describe/endpoint.ts';
export type { ExplainedFacet, ExplainedLevel, ExplainedStatement, Explanation } from './describe/explain.ts';
export type { FacetDescription } from './describe/facets.ts';
export type { IndexAdvice, IndexColumn } from './describe/indexes.ts';
export type { ItemDescription, ItemPropertyDescription } from './describe/item.ts';
export {
  createEngine,
  type Engine,
  type FromOptions,
  type ListParameters,
  type PolicyEntity,
  type PolicyItem,
  type QueryInput,
  type ScopedEngine,
} from './engine.ts';
export { type ExecuteOptions, execute, executeCount } from './execute.ts';
export type { FacetBucket, Facets } from './facets/values.ts';
export type { ListItem, NestedItems, SelectedItem, Selection } from './item-type.ts';
export type { Page, PageInfo } from './page/list-page.ts';
export type { PlanCheckOptions } from './plan-check.ts';
export type { SelectedRequest } from './request-type.ts';
export type { SelectedScope } from './select.ts';
export type { Item } from './serialize.ts';
export { NESTED_CURSORS, type NestedPage, type NestedPageInfo } from './tree/index.ts';
export type { IterateOptions } from './walk/iterate.ts';
