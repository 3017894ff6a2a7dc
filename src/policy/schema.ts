import type { EntityManager, EntityName, MikroORM } from '@mikro-orm/core';
import { bindPolicy } from './bind-policy.ts';
import type { BoundSchema } from './bound-schema.ts';
import type { ExposedField } from './declarations.ts';
import type { IsAny, OperatorsFor, RelationKey, RelationTargets, ScalarFields, TargetOf } from './entity-types.ts';
import type { FieldOption, FilterableOption } from './options.ts';

export type { ExposedField };

/** A nested policy, or a function returning one so that policies can refer to each other before they exist. */
export type NestedPolicy<T = any> = Policy<T> | (() => Policy<T>);

/**
 * `unknown` when entity type E is the relation's target (mutually assignable, with the same keys: entity classes
 * are compared structurally, so a subset of another entity's properties is not enough), else a type no policy has.
 */
export type SameEntity<E, Target> =
  IsAny<E> extends true
    ? unknown
    : IsAny<Target> extends true
      ? unknown
      : [E, keyof E] extends [Target, keyof Target]
        ? [Target, keyof Target] extends [E, keyof E]
          ? unknown
          : NotTheTarget<Target>
        : NotTheTarget<Target>;

/** What a nested policy of the wrong entity is compared with, so that the error names the expected entity. */
interface NotTheTarget<Target> {
  readonly '~nested policy must be of the relation target': Target;
}

/** The options `expose()` takes for a field of TypeScript type V: `filterable()` only with operators V can take. */
export type FieldOptionFor<V> = Exclude<FieldOption, FilterableOption> | FilterableOption<OperatorsFor<V>>;

/** `relation(publicName, nested, { property })`, as declared. */
export interface ExposedRelation {
  readonly kind: 'relation';
  readonly publicName: string;
  readonly nested: NestedPolicy;
  /** The association property this public name refers to, when it differs (`relation(name, policy, { property })`). */
  readonly property?: string;
  /** To-one relations: clients may write `<name> is null` / `<name> is not null` (docs/relationships.md). */
  readonly nullCheck?: boolean;
}

/** One declaration of a policy, in the order written. */
export type PolicyEntry = ExposedField | ExposedRelation;

/**
 * The whitelist of one entity: what clients may filter and sort, and through which relations. Immutable: every
 * method returns a new frozen policy. Nothing is checked against metadata until `bind()`.
 */
export class Policy<in out T = any> {
  /** Types only: ties the policy to its entity type, so a policy of one entity is not taken for another's. */
  declare readonly '~entity'?: T;
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
   * Expose a scalar field under its public name (the property's `serializedName`, else its name). The types accept
   * the entity's non-hidden scalar properties and the operators their TypeScript type can take (docs/policy.md).
   *
   * @example schema(Book).expose('title', filterable('eq', 'contains'), sortable())
   */
  expose<const N extends keyof ScalarFields<T> & string>(
    publicName: N,
    ...options: FieldOptionFor<ScalarFields<T>[N]>[]
  ): Policy<T> {
    const entry: ExposedField = Object.freeze({ kind: 'field', publicName, options: Object.freeze([...options]) });
    return new Policy<T>(this.entity, [...this.entries, entry]);
  }

  /**
   * Expose a relation with its own nested policy. The public name resolves by `serializedName`, then by property
   * name; `property` names the association explicitly. `nullCheck` (to-one only) allows `<name> is null`.
   *
   * @example schema(Book).relation('author', authorPolicy).relation('writer', authorPolicy, { property: 'coAuthor' })
   */
  relation<const N extends keyof RelationTargets<T> & string, E>(
    publicName: N,
    nested: NestedPolicy<E> & SameEntity<E, RelationTargets<T>[N]>,
    options?: { readonly nullCheck?: boolean },
  ): Policy<T>;
  relation<const P extends RelationKey<T> & string, E>(
    publicName: string,
    nested: NestedPolicy<E> & SameEntity<E, TargetOf<T, P>>,
    options: { readonly property: P; readonly nullCheck?: boolean },
  ): Policy<T>;
  relation(
    publicName: string,
    nested: NestedPolicy,
    options: { readonly property?: string; readonly nullCheck?: boolean } = {},
  ): Policy<T> {
    const entry: ExposedRelation = Object.freeze({
      kind: 'relation',
      publicName,
      nested,
      ...(options.property === undefined ? {} : { property: options.property }),
      ...(options.nullCheck ? { nullCheck: true } : {}),
    });
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
