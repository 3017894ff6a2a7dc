import type { IsToMany, RelationNamed } from './entity-types.ts';

/**
 * What the type of a policy records of one relation it exposes: the nested policy's type, whether the relation is
 * to-many, whether clients may select it (`relation(…, selectable())`), and the entity property behind its public
 * name. Types only: engines type the items of a `fields` selection from it (docs/selection.md, In code).
 */
export interface RelationType<
  P = unknown,
  M extends boolean = boolean,
  S extends boolean = boolean,
  K extends string = string,
> {
  readonly policy: P;
  readonly many: M;
  readonly selectable: S;
  readonly property: K;
}

/**
 * The relations a policy's type records, by public name. The default, an index signature, says nothing: a policy
 * typed `Policy<Book>` may have exposed any relation of Book.
 */
export type RelationTypes = { readonly [publicName: string]: RelationType };

/** What `relation(publicName, nested, options)` adds to the policy's RelationTypes (K: the property it names). */
export type RelationEntry<T, N extends string, P, O, K = RelationNamed<T, N>> = {
  readonly [Name in N]: RelationType<P, IsToMany<T, K>, Selects<O>, K & string>;
};

/**
 * Whether relation()'s third argument lets clients select the relation: `selectable(…)` or `{ select: true | {…} }`
 * do; no argument, `{ select: false }` or an options object without `select` do not; `boolean` when the type cannot
 * tell (a value typed `RelationArgument`), which the engine's types then allow.
 */
export type Selects<O> = O extends { readonly kind: 'selectable' | 'selectableRelation' }
  ? true
  : O extends { readonly select: infer S }
    ? [S] extends [false | undefined]
      ? false
      : [S] extends [true | object]
        ? true
        : boolean
    : false;

/**
 * The check that an options object given to a generic parameter has only the keys `Keys` (an object literal passed
 * to a type parameter escapes the excess-property check): `never` for each other key, so a misspelt option fails.
 */
export type OnlyKeys<O, Keys extends PropertyKey> = O extends object
  ? { readonly [K in keyof O]: K extends Keys ? unknown : never }
  : unknown;
