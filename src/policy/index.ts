export { type FieldOption, type FilterableOption, filterable, type SortableOption, sortable } from './options.ts';
export {
  type ExposedField,
  type ExposedRelation,
  type NestedPolicy,
  Policy,
  type PolicyEntry,
  schema,
} from './schema.ts';
