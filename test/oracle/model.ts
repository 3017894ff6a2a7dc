/**
 * The reference's own description of an endpoint and its in-memory rows, written by hand for each fixture. It
 * mirrors what the policy exposes but shares no code with the policy or bind stages, so the two can disagree.
 */
import type { DbModel, Kind, Value } from './values.ts';

/** Operators as a policy declares them. */
export type Op =
  | 'eq'
  | 'ne'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'contains'
  | 'startswith'
  | 'endswith'
  | 'ieq'
  | 'ine'
  | 'icontains'
  | 'istartswith'
  | 'iendswith'
  | 'in'
  | 'nin'
  | 'null';

/** A field the endpoint exposes: public name, the row key holding its value, kind and capabilities. */
export interface FieldSpec {
  readonly name: string;
  readonly property: string;
  readonly kind: Kind;
  readonly nullable: boolean;
  readonly ops: readonly Op[];
  readonly sortable: boolean;
  /** Enum fields: the declared items, in declaration order (a native ENUM column may sort by it). */
  readonly items?: readonly string[];
}

/** A relation the endpoint exposes; rows hold the related row (to-one) or an array of rows (to-many). */
export interface RelationSpec {
  readonly name: string;
  readonly property: string;
  readonly cardinality: 'one' | 'many';
  readonly target: () => EntitySpec;
  /** To-one, exposed with `nullCheck`: `<name> is null` tests whether the related row is missing (or hidden). */
  readonly nullCheck?: boolean;
  /**
   * Clients may select the related objects (`fields=author(name)`, `reviews(stars)`): for a to-many relation, the
   * list options of each parent's page as the policy declares them (see tree.ts).
   */
  readonly select?: SelectSpec;
  /**
   * To-one whose key the row itself holds (m:1, owning 1:1) with a single-column target key: `fields` may name it
   * without parentheses, and the item then carries that key's value (whether or not the related row is visible).
   */
  readonly holdsKey?: boolean;
  /**
   * To-many: the target's fields the policy lets `sum`, `avg`, `min` and `max` reduce (`reviews/avg(stars)`);
   * `count()` is allowed on every to-many relation.
   */
  readonly aggregated?: readonly string[];
}

/** A selectable relation's list options (to-many), as the policy declares them, written out for the reference. */
export interface SelectSpec {
  readonly maxLimit: number;
  readonly defaultLimit: number;
  /** The order when a request gives no `<path>.sort`, as terms over the target's own fields: `[['stars', 'desc']]`. */
  readonly defaultSort: readonly (readonly [field: string, direction: 'asc' | 'desc'])[];
  readonly allowCount: boolean;
}

/** An exposed entity: its fields, relations, primary-key row keys and which row filters apply to it. */
export interface EntitySpec {
  readonly name: string;
  readonly fields: readonly FieldSpec[];
  readonly relations: readonly RelationSpec[];
  /** Row keys of the primary key, in metadata order (tie-breakers ascending). */
  readonly pk: readonly string[];
  /** Rows with a non-null `deletedAt` are hidden while the soft-delete filter is on. */
  readonly softDelete?: boolean;
  /** Rows whose `tenant` differs from the active tenant are hidden while a tenant is set. */
  readonly tenant?: boolean;
  /**
   * The fixture's filter whose condition reaches through a relation, written out over rows: while
   * `Visibility.pathFilter` is on, rows it returns false for are hidden.
   */
  readonly pathFilter?: (row: Row, scope: Visibility) => boolean;
}

/** An in-memory row: scalar values by property, related rows by relation property. */
export interface Row {
  [key: string]: Value | Row | readonly Row[] | undefined;
}

/**
 * Which rows exist for a query: the soft-delete filter on or off, and the active tenant if any; and how the
 * database the query runs on compares values (binary strings when left out).
 */
export interface Visibility {
  /** How the database compares strings and enums (dbModelFor(dialect)); BINARY when left out. */
  readonly db?: DbModel;
  readonly softDelete: boolean;
  readonly tenant?: number;
  /** The fixture's relation-path filter (see EntitySpec.pathFilter) is on. */
  readonly pathFilter?: boolean;
}

/** Tell whether a row exists under the active filters: filtered-out rows do not exist at all. */
export function visible(entity: EntitySpec, row: Row, scope: Visibility): boolean {
  if (entity.softDelete && scope.softDelete && row['deletedAt'] != null) return false;
  if (entity.tenant && scope.tenant !== undefined && row['tenant'] !== scope.tenant) return false;
  if (entity.pathFilter && scope.pathFilter && !entity.pathFilter(row, scope)) return false;
  return true;
}

/** Find a field of an entity by public name. */
export function fieldOf(entity: EntitySpec, name: string): FieldSpec {
  const field = entity.fields.find((f) => f.name === name);
  if (!field) throw new Error(`oracle: ${entity.name} has no field ${name}`);
  return field;
}
