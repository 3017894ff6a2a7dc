import type { ListItem, SelectedItem } from '../engine/item-type.ts';
import type { IsAny } from '../policy/entity-types.ts';
import type { Policy } from '../policy/schema.ts';
import type { EntityOf, ManyOf, NestedPolicyOf } from './types.ts';

/**
 * A value as it arrives in JSON: dates as their ISO strings, bigints as decimal strings (as the server writes them),
 * objects and arrays member by member.
 */
export type Json<T> = T extends Date | bigint
  ? string
  : T extends readonly (infer E)[]
    ? Json<E>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;

/**
 * The item a request answers with: typed by its `fields` selection (`SelectedItem`), or the entity's whole item
 * (`ListItem`) without one, as JSON carries them.
 */
export type ItemOf<P, S> =
  IsAny<P> extends true
    ? Record<string, any>
    : S extends readonly unknown[]
      ? number extends S['length']
        ? Json<ListItem<EntityOf<P>>>
        : Json<SelectedItem<P, S>>
      : Json<ListItem<EntityOf<P>>>;

/** Each nested selection of the object entries G as `[output key, relation, selection]`. */
type Parts<G> = G extends object
  ? {
      [K in keyof G]: G[K] extends readonly unknown[]
        ? [K, K, G[K]]
        : { [R in keyof G[K]]: [K, R, G[K][R]] }[keyof G[K]];
    }[keyof G]
  : never;

/** Each list (to-many) selection of S as `[dotted path, its policy]`: `['best', reviewPolicy]`. */
type Lists<P, S, Prefix extends string = ''> = S extends readonly unknown[]
  ? Parts<Exclude<S[number], string>> extends infer X
    ? X extends [infer K extends string, infer R, infer C]
      ?
          | (ManyOf<P, R> extends false ? never : [`${Prefix}${K}`, NestedPolicyOf<P, R>])
          | Lists<NestedPolicyOf<P, R>, C, `${Prefix}${K}.`>
      : never
    : never
  : never;

/** The paths of the lists a selection opens (`reviews`, `best`, `author.books`): none without a selection. */
export type NestedPath<P, S> = S extends readonly unknown[]
  ? number extends S['length']
    ? string
    : Lists<P, S>[0]
  : never;

/** The policy of the list at `Path` of selection S. */
export type PolicyAt<P, S, Path> = S extends readonly unknown[]
  ? number extends S['length']
    ? Policy
    : Extract<Lists<P, S>, [Path, any]>[1]
  : Policy;
