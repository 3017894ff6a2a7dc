import type { KnownParameter, NestedParameter } from '../syntax/parameters.ts';
import type { ListPath, SelectedItem, Selection } from './item-type.ts';
import type { QueryInput } from './request.ts';

/**
 * What list(), pages(), items() and explain() check of a request written in code, on top of QueryInput, for an
 * engine of policy P: a `fields` array is a Selection of P; every other key is a list parameter or a nested list's
 * (`reviews.limit`, on a path the selection opens as a list when `fields` is an array). Strings, URLSearchParams and
 * records of any keys (a request's own values, fromQueryString) pass as they are: the engine checks them at run
 * time, as it checks everything.
 */
export type RequestCheck<P, Q> = Q extends string | URLSearchParams
  ? unknown
  : string extends keyof Q
    ? unknown
    : { readonly [K in keyof Q]: K extends 'fields' ? FieldsCheck<P, Q[K]> : ParameterCheck<K, PathsOf<P, Q>> };

/** A request typed for an engine of policy P: the request itself, checked (see RequestCheck). */
export type CheckedRequest<P, Q extends QueryInput> = Q & NoInfer<RequestCheck<P, Q>>;

/** The items a request answers with: the selection's when `fields` is an array written out, else `I`. */
export type ItemsOf<P, I, Q> = Q extends { readonly fields: infer S extends readonly unknown[] }
  ? number extends S['length']
    ? I
    : SelectedItem<P, S>
  : I;

/** A `fields` array written out (a tuple, as a literal gives) is a Selection of P; a `string[]` is checked at run time. */
type FieldsCheck<P, V> = V extends readonly unknown[] ? (number extends V['length'] ? unknown : Selection<P>) : unknown;

/** The list paths a request's `fields` opens; any path when the types cannot see them. */
type PathsOf<P, Q> = Q extends { readonly fields: infer S extends readonly unknown[] }
  ? number extends S['length']
    ? string
    : ListPath<P, S>
  : string;

type ParameterCheck<K, Paths extends string> = K extends KnownParameter | `${Paths}.${NestedParameter}`
  ? unknown
  : { readonly [M in `'${K & string}' is not a list parameter of this request`]: never };
