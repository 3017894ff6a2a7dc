export type { EngineConfig, ListContext, SearchCallback } from './config.ts';
export type {
  EngineDescription,
  FieldDescription,
  RelationDescription,
  SchemaDescription,
} from './describe/endpoint.ts';
export type { ExplainedStatement, Explanation } from './describe/explain.ts';
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
export type { ListItem } from './item-type.ts';
export type { Page, PageInfo } from './page/list-page.ts';
export type { Item } from './serialize.ts';
export type { IterateOptions } from './walk/iterate.ts';
