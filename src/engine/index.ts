export type { EngineConfig, ListContext, SearchCallback } from './config.ts';
export type { EngineDescription, FieldDescription, RelationDescription, SchemaDescription } from './describe.ts';
export type { ItemDescription, ItemPropertyDescription } from './describe-item.ts';
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
export type { ExplainedStatement, Explanation } from './explain.ts';
export type { IndexAdvice, IndexColumn } from './indexes.ts';
export type { ListItem } from './item-type.ts';
export type { IterateOptions } from './iterate.ts';
export type { Page, PageInfo } from './list.ts';
export type { Item } from './serialize.ts';
