export {
  type IsAny,
  type OperatorsFor,
  type PublicNameOf,
  PublicNames,
  type RelationKey,
  type RelationTargets,
  type ScalarFields,
  type ScalarKey,
  type TargetOf,
  type WithPublicNames,
} from './entity-types.ts';
export {
  type FieldOption,
  type FilterableOption,
  filterable,
  type SelectableOption,
  type SortableOption,
  selectable,
  sortable,
} from './options.ts';
export {
  type ExposedField,
  type ExposedRelation,
  type FieldOptionFor,
  type NestedPolicy,
  Policy,
  type PolicyEntry,
  schema,
} from './schema.ts';
