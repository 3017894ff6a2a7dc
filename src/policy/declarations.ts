import type { EntityName } from '@mikro-orm/core';
import type { FieldOption, RelationAggregates, RelationFacetOptions, RelationSelectOptions } from './options.ts';

/** `expose(publicName, ...options)`, as declared. */
export interface ExposedField {
  readonly kind: 'field';
  readonly publicName: string;
  readonly options: readonly FieldOption[];
}

/**
 * A policy as binding reads it: its entity and its declarations. Every `Policy` is one; binding takes this shape
 * instead of the class because `Policy.bind()` calls binding, and the class need not be imported both ways.
 */
export interface Declarations {
  readonly entity: EntityName<any>;
  readonly entries: readonly (ExposedField | DeclaredRelation)[];
}

/** `relation(publicName, nested, { property, nullCheck, select })` as binding reads it (an `ExposedRelation` is one). */
export interface DeclaredRelation {
  readonly kind: 'relation';
  readonly publicName: string;
  readonly nested: Declarations | (() => Declarations);
  readonly property?: string;
  readonly nullCheck?: boolean;
  /** Clients may select the related objects, with these list options (checked at bind: bind-selection.ts). */
  readonly select?: RelationSelectOptions;
  /** Clients may count the related rows' keys beside a page (`facets=author`); checked at bind (bind-facet.ts). */
  readonly facet?: RelationFacetOptions;
  /** The aggregates clients may compute over a to-many relation (checked at bind: bind-aggregates.ts). */
  readonly aggregates?: RelationAggregates;
}
