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
export type { RelationType, RelationTypes } from './exposed-types.ts';
export {
  type FieldOption,
  type FilterableOption,
  filterable,
  type RelationSelectableOption,
  type RelationSelectOptions,
  type SelectableOption,
  type SortableOption,
  type SortableOptions,
  selectable,
  sortable,
} from './options.ts';
export {
  type ExposedField,
  type ExposedFields,
  type ExposedRelation,
  type ExposedRelations,
  type FieldOptionFor,
  type NestedPolicy,
  Policy,
  type PolicyEntry,
  type RelationArgument,
  type RelationOptions,
  schema,
} from './schema.ts';
