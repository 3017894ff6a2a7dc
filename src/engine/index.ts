export type { EngineConfig, ListContext, SearchCallback } from './config.ts';
export type { EngineDescription, FieldDescription, RelationDescription, SchemaDescription } from './describe.ts';
export { createEngine, type Engine, type FromOptions, type QueryInput, type ScopedEngine } from './engine.ts';
export { execute, executeCount } from './execute.ts';
export type { IndexAdvice, IndexColumn } from './indexes.ts';
export type { IterateOptions } from './iterate.ts';
export type { Page, PageInfo } from './list.ts';
export type { Item } from './serialize.ts';
