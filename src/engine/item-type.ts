import type { Collection, Primary, Reference, Scalar, ScalarReference } from '@mikro-orm/core';
import type { DataKey, IsAny, PublicNameOf, ScalarKey } from '../policy/entity-types.ts';

/**
 * The type of one list item of entity T, as the engine serializes it: public names (property names, or the
 * `[PublicNames]` declared on the entity), hidden properties and collections left out, to-one relations as the
 * target's primary key, bigints as decimal strings (as MikroORM serializes them), dates as `Date` (they become
 * strings only when the response is written as JSON).
 * `Record<string, unknown>` when T is `any`. See docs/policy.md for what the types cannot see.
 */
export type ListItem<T> =
  IsAny<T> extends true
    ? Record<string, unknown>
    : { [K in keyof T as K extends ItemKey<T> ? PublicNameOf<T, K> : never]: ItemValue<T[K]> };

/** Keys serialize() writes for an unpopulated entity: all but collections, and no `_` names except `_id`. */
type ItemKey<T> = Exclude<DataKey<T>, CollectionKey<T> | `_${string}`> | ('_id' & ScalarKey<T>);

type CollectionKey<T> = {
  [K in DataKey<T>]: K extends keyof T ? (NonNullable<T[K]> extends Collection<any> ? K : never) : never;
}[DataKey<T>];

/**
 * One property's serialized value: scalars as they are, except bigints, which MikroORM's BigIntType serializes as
 * decimal strings (its `number` mode is typed `number` already); scalar references unwrapped; relations as keys.
 */
type ItemValue<V> =
  IsAny<V> extends true
    ? any
    : V extends null | undefined
      ? V
      : V extends ScalarReference<infer U>
        ? U
        : V extends bigint
          ? string
          : V extends Scalar
            ? V extends { __serialized?: infer S }
              ? unknown extends S
                ? V
                : S
              : V
            : V extends Reference<infer E>
              ? KeyOf<E>
              : V extends readonly unknown[]
                ? V
                : KeyOf<V>;

/** A reference as serialize() writes it: the single primary key, or an object of the key properties. */
type KeyOf<E> = Primary<E> extends readonly unknown[] ? Record<string, unknown> : Primary<E>;
