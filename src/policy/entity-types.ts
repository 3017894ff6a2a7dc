import type {
  Collection,
  ExpandProperty,
  Hidden,
  HiddenProps,
  LazyRef,
  PrimaryKeyProp,
  Reference,
  Scalar,
  ScalarReference,
} from '@mikro-orm/core';
import type { Operator } from './options.ts';

/**
 * Declares, on an entity class or interface, the public names of properties with a `serializedName`, which
 * MikroORM's types do not carry: `declare [PublicNames]?: { sku: 'code' }`. listql's types then accept
 * `expose('code')`, refuse `expose('sku')`, and type items with the `code` key. Types only: bind reads metadata.
 */
export const PublicNames: unique symbol = Symbol('listql.publicNames');

/**
 * Entity type E with the public names of its serialized properties declared, for entities whose type cannot carry
 * `[PublicNames]` (a `defineEntity` result without a class): `schema<WithPublicNames<InferEntity<typeof Note>,
 * { text: 'body' }>>(Note)`.
 */
export type WithPublicNames<E, M extends { readonly [K in keyof E]?: string }> = E & { readonly [PublicNames]?: M };

/** `true` when T is `any`. */
export type IsAny<T> = 0 extends 1 & T ? true : false;

/** Whether the type says nothing about the value (`any` or `unknown`): then every name and operator is allowed. */
type Unknowable<V> = IsAny<V> extends true ? true : unknown extends V ? true : false;

/** The `[PublicNames]` map of an entity type, or an empty one. */
type NameMap<T> = T extends { readonly [PublicNames]?: infer M } ? M : Record<never, never>;

/** The public name of property K of T: its declared `[PublicNames]` entry, else K itself. */
export type PublicNameOf<T, K> = K extends keyof NameMap<T> ? NameMap<T>[K] & string : K & string;

/** Names declared hidden, by `[HiddenProps]` or the `Hidden<…>` brand. */
type HiddenKeys<T> =
  | (T extends { [HiddenProps]?: infer K } ? K : never)
  | { [K in keyof T]-?: Unknowable<T[K]> extends true ? never : NonNullable<T[K]> extends Hidden ? K : never }[keyof T];

/** Property names that are data at all: strings, not methods, not hidden. */
export type DataKey<T> = {
  [K in keyof T]-?: K extends string
    ? K extends HiddenKeys<T>
      ? never
      : Unknowable<T[K]> extends true
        ? K
        : NonNullable<T[K]> extends (...args: never[]) => unknown
          ? never
          : K
    : never;
}[keyof T];

/** Whether a property value is a scalar as far as the types know (a scalar reference counts as its value). */
type IsScalarValue<V> =
  Unknowable<V> extends true ? true : [NonNullable<V>] extends [Scalar | ScalarReference<any>] ? true : false;

/** Whether a property value is an association as far as the types know (a reference, a collection, an entity). */
type IsRelationValue<V> =
  Unknowable<V> extends true
    ? true
    : [NonNullable<V>] extends [Reference<any> | Collection<any> | LazyRef.Brand<any>]
      ? true
      : [NonNullable<V>] extends [Scalar | ScalarReference<any> | readonly unknown[]]
        ? false
        : [NonNullable<V>] extends [object]
          ? true
          : false;

/** The entity's non-hidden scalar property names (every name when the entity type is `any`). */
export type ScalarKey<T> =
  IsAny<T> extends true ? string : { [K in DataKey<T>]: IsScalarValue<T[K]> extends true ? K : never }[DataKey<T>];

/** The entity's non-hidden relation property names (every name when the entity type is `any`). */
export type RelationKey<T> =
  IsAny<T> extends true ? string : { [K in DataKey<T>]: IsRelationValue<T[K]> extends true ? K : never }[DataKey<T>];

/** The scalar properties of T by public name, with their TypeScript types. */
export type ScalarFields<T> =
  IsAny<T> extends true
    ? Record<string, any>
    : { [K in ScalarKey<T> as PublicNameOf<T, K>]: K extends keyof T ? T[K] : never };

/** The relation properties of T by public name, with their target entity types. */
export type RelationTargets<T> =
  IsAny<T> extends true ? Record<string, any> : { [K in RelationKey<T> as PublicNameOf<T, K>]: TargetOf<T, K> };

/** The entity a relation property of T points to (through `Ref`, `Reference`, `LazyRef` and `Collection`). */
export type TargetOf<T, K> = K extends keyof T ? (IsAny<T[K]> extends true ? any : ExpandProperty<T[K]>) : any;

/** The relation property of T whose public name is N (every name when the entity type is `any`). */
export type RelationNamed<T, N> =
  IsAny<T> extends true ? string : { [K in RelationKey<T>]: PublicNameOf<T, K> extends N ? K : never }[RelationKey<T>];

/** Whether relation property K of T is a collection (to-many): `boolean` when the types cannot tell. */
export type IsToMany<T, K> = K extends keyof T
  ? Unknowable<T[K]> extends true
    ? boolean
    : [NonNullable<T[K]>] extends [Collection<any>]
      ? true
      : false
  : boolean;

/**
 * The public names of T's primary-key properties, found as MikroORM's `Primary` finds the key: `[PrimaryKeyProp]`,
 * else `_id`, `id` or `uuid`; none when the types do not say (bind knows the key from metadata).
 */
export type KeyName<T> = PublicNameOf<T, KeyProperty<T>>;

type KeyProperty<T> = T extends { readonly [PrimaryKeyProp]?: infer K }
  ? K extends keyof T
    ? K
    : K extends readonly (infer E)[]
      ? E & keyof T
      : never
  : T extends { _id?: unknown }
    ? '_id' | ('id' extends keyof T ? 'id' : never)
    : T extends { id?: unknown }
      ? 'id'
      : T extends { uuid?: unknown }
        ? 'uuid'
        : never;

type OrderingOperator = 'gt' | 'gte' | 'lt' | 'lte';
type TextOperator = 'contains' | 'startswith' | 'endswith' | 'ieq' | 'ine' | 'icontains' | 'istartswith' | 'iendswith';

/**
 * The operators a value of TypeScript type V can take: no text operators on numbers, bigints and dates, neither
 * text nor ordering operators on booleans. Anything else (strings, unknown types) may take every operator; the
 * bind-time check against the column type stays the real guard.
 */
export type OperatorsFor<V> =
  Unknowable<V> extends true
    ? Operator
    : [ScalarValue<NonNullable<V>>] extends [boolean]
      ? Exclude<Operator, OrderingOperator | TextOperator>
      : [ScalarValue<NonNullable<V>>] extends [number | bigint | Date]
        ? Exclude<Operator, TextOperator>
        : Operator;

type ScalarValue<V> = V extends ScalarReference<infer U> ? NonNullable<U> : V;
