import type { KnownParameter, NestedParameter } from '../syntax/parameters.ts';

/**
 * A request of a selected scope (ScopedEngine.select): the object form of a request without `fields`, which the
 * selection gives, and with the parameters of the nested lists the selection opens, named by their path
 * (`'reviews.limit'`, `'best.sort'`). `Paths` is `string` when the types cannot see them, and `never` when the
 * selection opens no nested list. One type per selection, never one per call: list() stays a plain method, so a loop
 * whose request takes the previous page's cursor infers its types.
 */
export type SelectedRequest<Paths extends string = string> = {
  readonly [K in Exclude<KnownParameter, 'fields'> | `${Paths}.${NestedParameter}`]?:
    | string
    | readonly string[]
    | undefined;
} & {
  /** Not taken: the selection given to select() is the request's `fields` (`invalid_parameter` at run time). */
  readonly fields?: { readonly 'select() gives this request its fields: leave them out': never } | undefined;
};
