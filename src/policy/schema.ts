import type { EntityManager, EntityName, MikroORM } from '@mikro-orm/core';
import { bindPolicy } from '../bind/bind-schema.ts';
import type { BoundSchema } from '../bind/types.ts';
import type { FieldOption } from './options.ts';

/** A nested policy, or a function returning one so that policies can refer to each other before they exist. */
export type NestedPolicy = Policy<any> | (() => Policy<any>);

/** `expose(publicName, ...options)`, as declared. */
export interface ExposedField {
  readonly kind: 'field';
  readonly publicName: string;
  readonly options: readonly FieldOption[];
}

/** `relation(publicName, nested, { property })`, as declared. */
export interface ExposedRelation {
  readonly kind: 'relation';
  readonly publicName: string;
  readonly nested: NestedPolicy;
  /** The association property this public name refers to, when it differs (RelationGoField). */
  readonly property?: string;
}

/** One declaration of a policy, in the order written. */
export type PolicyEntry = ExposedField | ExposedRelation;

/**
 * The whitelist of one entity: what clients may filter and sort, and through which relations. Immutable: every
 * method returns a new frozen policy. Nothing is checked against metadata until `bind()`.
 */
export class Policy<T = any> {
  /** The entity class, EntitySchema or defineEntity result this policy is about. */
  readonly entity: EntityName<any>;
  /** Declarations in the order written. */
  readonly entries: readonly PolicyEntry[];

  constructor(entity: EntityName<any>, entries: readonly PolicyEntry[] = []) {
    this.entity = entity;
    this.entries = Object.freeze([...entries]);
    Object.freeze(this);
  }

  /**
   * Expose a scalar field under its public name (the property's `serializedName`, else its name).
   *
   * @example schema(Book).expose('title', filterable('eq', 'contains'), sortable())
   */
  expose(publicName: (keyof T & string) | (string & {}), ...options: FieldOption[]): Policy<T> {
    const entry: ExposedField = Object.freeze({ kind: 'field', publicName, options: Object.freeze([...options]) });
    return new Policy<T>(this.entity, [...this.entries, entry]);
  }

  /**
   * Expose a relation with its own nested policy. The public name resolves by `serializedName`, then by property
   * name; `property` names the association explicitly.
   *
   * @example schema(Book).relation('author', authorPolicy).relation('writer', authorPolicy, { property: 'coAuthor' })
   */
  relation(publicName: string, nested: NestedPolicy, options: { property?: string } = {}): Policy<T> {
    const entry: ExposedRelation =
      options.property === undefined
        ? Object.freeze({ kind: 'relation', publicName, nested })
        : Object.freeze({ kind: 'relation', publicName, nested, property: options.property });
    return new Policy<T>(this.entity, [...this.entries, entry]);
  }

  /**
   * Resolve this policy against an ORM's metadata, once (cached per policy and metadata); throws
   * `ListError('invalid_schema')` naming the entity and property at fault.
   */
  bind(orm: MikroORM | EntityManager): BoundSchema {
    return bindPolicy(this, orm);
  }
}

/**
 * Start a policy for an entity class, an `EntitySchema` or a `defineEntity` result.
 *
 * @example const books = schema(Book).expose('id', sortable()).expose('title', filterable())
 */
export function schema<T extends object>(entity: EntityName<T>): Policy<T> {
  return new Policy<T>(entity);
}
