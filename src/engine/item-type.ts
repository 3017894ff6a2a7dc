import type { Collection, Primary, Reference, Scalar, ScalarReference } from '@mikro-orm/core';
import type {
  DataKey,
  IsAny,
  IsToMany,
  KeyName,
  PublicNameOf,
  RelationKey,
  ScalarFields,
  ScalarKey,
  TargetOf,
} from '../policy/entity-types.ts';
import type { RelationType, RelationTypes } from '../policy/exposed-types.ts';
import type { Policy } from '../policy/schema.ts';
import type { NestedPageInfo } from './tree/attach.ts';

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

/** The entity of a policy type. */
type EntityOf<P> = P extends Policy<infer T, any, any> ? T : never;

/** The field names a policy type exposes (`string` when its type does not record them). */
type FieldsOf<P> = P extends Policy<any, infer F, any> ? F : never;

/** The relations a policy type exposes, by public name; from its entity when its type does not record them. */
type RelationsOf<P> =
  P extends Policy<infer T, any, infer R> ? (string extends keyof R ? EntityRelations<T> : R) : never;

/** Every relation of entity T, as a policy typed `Policy<T>` may expose it: selectable or not, unknown nested policy. */
type EntityRelations<T> =
  IsAny<T> extends true
    ? RelationTypes
    : {
        readonly [K in RelationKey<T> as PublicNameOf<T, K>]: RelationType<
          Policy<TargetOf<T, K>>,
          IsToMany<T, K>,
          boolean,
          K & string
        >;
      };

/** The public names of the relations a selection of P may open: those not declared unselectable. */
type SelectableRelation<P> = {
  [K in keyof RelationsOf<P>]: RelationsOf<P>[K] extends { readonly selectable: false } ? never : K;
}[keyof RelationsOf<P>] &
  string;

/** The public names of P's to-one relations: `fields` may name one bare, for the key items carry. */
type ToOneRelation<P> = {
  [K in keyof RelationsOf<P>]: RelationsOf<P>[K] extends { readonly many: true } ? never : K;
}[keyof RelationsOf<P>] &
  string;

/** The nested policy type of P's relation K. */
type NestedPolicyOf<P, K> =
  RelationsOf<P>[K & keyof RelationsOf<P>] extends RelationType<infer N, any, any, any>
    ? N extends Policy<any, any, any>
      ? N
      : Policy
    : Policy;

/** Whether P's relation K is to-many (`boolean` when the types cannot tell). */
type ManyOf<P, K> = RelationsOf<P>[K & keyof RelationsOf<P>] extends RelationType<any, infer M, any, any> ? M : boolean;

/**
 * A name a `fields` selection of policy P may give as a string: an exposed field, a primary-key property, or a
 * to-one relation (for its key). As far as P's type knows: `selectable(false)` is not in it, and bind decides.
 */
type SelectableName<P> =
  IsAny<EntityOf<P>> extends true
    ? string
    : (FieldsOf<P> & keyof ScalarFields<EntityOf<P>>) | KeyName<EntityOf<P>> | ToOneRelation<P>;

/**
 * The object form of `fields` that policy P allows, as the engine's types check it (docs/selection.md, In code):
 * names, `{ relation: [...] }` for a selectable relation, `{ alias: { relation: [...] } }`, at every level by the
 * nested policy's type.
 *
 * @example const fields = ['title', { author: ['name'] }] as const satisfies Selection<typeof bookPolicy>;
 */
export type Selection<P> = readonly [SelectionEntry<P>, ...SelectionEntry<P>[]];

type SelectionEntry<P> = SelectableName<P> | NestedSelections<P> | AliasedSelection<P>;

type NestedSelections<P> = [SelectableRelation<P>] extends [never]
  ? never
  : { readonly [K in SelectableRelation<P>]?: Selection<NestedPolicyOf<P, K>> };

type AliasedSelection<P> = [SelectableRelation<P>] extends [never]
  ? never
  : { readonly [alias: string]: NestedSelections<P> };

/**
 * The item of a `fields` selection S (its object form, as written) of an engine of policy P: the primary key and the
 * picked fields as `ListItem` types them, a to-one relation named bare as its key, and each nested selection under
 * its alias or relation name: a to-one as the nested item or `null`, a to-many as a page of nested items.
 *
 * @example SelectedItem<typeof bookPolicy, ['title', { author: ['name'] }]> // { id; title; author: { id; name } | null }
 */
export type SelectedItem<P, S extends readonly unknown[]> =
  IsAny<EntityOf<P>> extends true
    ? Record<string, unknown>
    : Flat<
        Pick<
          ListItem<EntityOf<P>>,
          (KeyName<EntityOf<P>> | ItemKeyOf<P, Extract<S[number], string>>) & keyof ListItem<EntityOf<P>>
        > & {
          -readonly [X in NestedParts<Exclude<S[number], string>> as X[0]]: NestedValue<P, X[1], X[2]>;
        }
      >;

/** The item key of a bare name: a relation's key is carried under its property's public name. */
type ItemKeyOf<P, N> =
  N extends ToOneRelation<P>
    ? PublicNameOf<EntityOf<P>, RelationsOf<P>[N] extends RelationType<any, any, any, infer K> ? K : never>
    : N;

/** Each nested selection of the object entries G as `[output key, relation, selection]`. */
type NestedParts<G> = G extends object
  ? {
      [K in keyof G]: G[K] extends readonly unknown[]
        ? [K, K, G[K]]
        : { [R in keyof G[K]]: [K, R, G[K][R]] }[keyof G[K]];
    }[keyof G]
  : never;

type NestedValue<P, R, S> = S extends readonly unknown[]
  ? Cardinal<ManyOf<P, R>, SelectedItem<NestedPolicyOf<P, R>, S>>
  : never;

/** A to-many's page of items, a to-one's item or `null`; either when the types cannot tell. */
type Cardinal<M, I> = M extends true ? NestedItems<I> : M extends false ? I | null : NestedItems<I> | I | null;

/** A to-many nested selection in an item: one parent's page of nested items (NestedPage, typed). */
export interface NestedItems<I> {
  readonly items: I[];
  readonly page: NestedPageInfo;
}

/**
 * The dotted output-key paths of the nested selections in S that are lists (to-many), for `<path>.limit` & co. Any
 * path below an untyped policy, decided before S is looked at (comparing two scopes never unfolds a selection), and
 * below an array that is not written out (a tuple, as a literal gives): a selection that failed its check is
 * `Selection<P>` itself, whose paths never end.
 */
export type ListPath<P, S, Prefix extends string = ''> =
  IsAny<EntityOf<P>> extends true
    ? `${Prefix}${string}`
    : S extends readonly unknown[]
      ? number extends S['length']
        ? `${Prefix}${string}`
        : NestedParts<Exclude<S[number], string>> extends infer X
          ? X extends [infer K extends string, infer R, infer C]
            ?
                | (ManyOf<P, R> extends false ? never : `${Prefix}${K}`)
                | ListPath<NestedPolicyOf<P, R>, C, `${Prefix}${K}.`>
            : never
          : never
      : never;

type Flat<T> = { [K in keyof T]: T[K] } & {};
