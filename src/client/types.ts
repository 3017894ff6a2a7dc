import type { ScalarReference } from '@mikro-orm/core';
import type {
  IsAny,
  IsToMany,
  OperatorsFor,
  PublicNameOf,
  RelationKey,
  ScalarFields,
  TargetOf,
} from '../policy/entity-types.ts';
import type { RelationType, RelationTypes } from '../policy/exposed-types.ts';
import type { Policy } from '../policy/schema.ts';

/**
 * What the client reads of a policy's type (`typeof bookPolicy`): the names it exposes, the TypeScript type of each
 * field, its relations and their nested policies. Types only, computed from what `expose()` and `relation()` record
 * (docs/client.md, What the types catch); nothing here exists at run time.
 */

/** The entity type of a policy type. */
export type EntityOf<P> = IsAny<P> extends true ? any : P extends Policy<infer T, any, any> ? T : never;

/** The relations a policy type records; every relation of its entity when it records none (`Policy<Book>`). */
export type RelationsOf<P> =
  IsAny<P> extends true
    ? RelationTypes
    : P extends Policy<infer T, any, infer R>
      ? string extends keyof R
        ? EntityRelations<T>
        : R
      : never;

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

/** The exposed field names of a policy type (every scalar of its entity when it records none). */
export type FieldNames<P> =
  IsAny<EntityOf<P>> extends true
    ? string
    : (P extends Policy<any, infer F, any> ? F : never) & keyof ScalarFields<EntityOf<P>> & string;

/**
 * A name `facets` may carry for policy P, alone or with its number of values (`year`, `year:5`): any exposed field or
 * relation (the types cannot see which the policy opened to facets: the server refuses the others).
 */
export type FacetName<P> = `${FieldNames<P> | (keyof RelationsOf<P> & string)}${'' | `:${number}`}`;

/** The TypeScript type of field F of policy P's entity. */
export type FieldType<P, F> = F extends keyof ScalarFields<EntityOf<P>> ? ScalarFields<EntityOf<P>>[F] : unknown;

/** The to-one relations of P (a relation whose kind the types cannot tell counts as both). */
export type ToOne<P> = {
  [K in keyof RelationsOf<P>]: RelationsOf<P>[K] extends { readonly many: true } ? never : K;
}[keyof RelationsOf<P>] &
  string;

/** The to-many relations of P, reached by quantifiers (`reviews/any(r: …)`) and nested lists. */
export type ToMany<P> = {
  [K in keyof RelationsOf<P>]: RelationsOf<P>[K] extends { readonly many: false } ? never : K;
}[keyof RelationsOf<P>] &
  string;

/** The nested policy type of P's relation K (`Policy`, which allows any name, when the types do not know it). */
export type NestedPolicyOf<P, K> =
  RelationsOf<P>[K & keyof RelationsOf<P>] extends RelationType<infer N, any, any, any>
    ? N extends Policy<any, any, any>
      ? N
      : Policy
    : Policy;

/** Whether P's relation K is to-many (`boolean` when the types cannot tell). */
export type ManyOf<P, K> =
  RelationsOf<P>[K & keyof RelationsOf<P>] extends RelationType<any, infer M, any, any> ? M : boolean;

/** How many to-one relations a typed path may walk: the types stop there, the server allows `maxPathDepth`. */
type Deep = [0, 0, 0, 0];

/** Paths through P's to-one relations to what `Leaf` names at the end (`author/name`, `author/publisher/name`). */
type Through<P, D extends 0[], Leaf extends 'filter' | 'sort' | 'quantifier'> = D['length'] extends Deep['length']
  ? never
  : { [K in ToOne<P>]: `${K}/${PathOf<NestedPolicyOf<P, K>, [...D, 0], Leaf>}` }[ToOne<P>];

type PathOf<P, D extends 0[], Leaf extends 'filter' | 'sort' | 'quantifier'> =
  | (Leaf extends 'filter' ? FieldNames<P> | ToOne<P> : Leaf extends 'sort' ? FieldNames<P> : ToMany<P>)
  | Through<P, D, Leaf>;

/** A path a filter may compare or null-check: a field, a to-one relation, or either through to-one relations. */
export type FilterPath<P> = PathOf<P, [], 'filter'>;

/** A path `sort` may name: a field, or a field through to-one relations. */
export type SortPath<P> = PathOf<P, [], 'sort'>;

/**
 * The modifiers after a sort key: `:ci` (case-insensitive, where the policy allows it) and where NULLs go
 * (`:nullsfirst`, `:nullslast`; last when not said).
 */
export type SortModifiers = '' | ':ci' | ':nullsfirst' | ':nullslast' | ':ci:nullsfirst' | ':ci:nullslast';

/**
 * An aggregate of a to-many relation as a sort key (`reviews/count()`, `reviews/avg(stars)`, an inner filter inside
 * the parentheses): which aggregates the policy allows, and the filter, the server checks.
 */
export type AggregateSortPath<P> = `${ToMany<P>}/${'count' | 'sum' | 'avg' | 'min' | 'max'}(${string})`;

/** A sort key: a sort path, `-` before it for descending, then its modifiers (`-score:nullsfirst`, `title:ci`). */
export type SortKey<P> =
  | `${'' | '-'}${SortPath<P>}${SortModifiers}`
  | `${'' | '-'}${AggregateSortPath<P>}${'' | ':nullsfirst' | ':nullslast'}`;

/** A path a quantifier may range over: a to-many relation, or one through to-one relations (`author/books`). */
export type QuantifierPath<P> = PathOf<P, [], 'quantifier'>;

/** The policy at the end of a quantifier path: the to-many relation's nested policy. */
export type QuantifiedPolicy<P, Path> = Path extends `${infer K}/${infer Rest}`
  ? QuantifiedPolicy<NestedPolicyOf<P, K>, Rest>
  : NestedPolicyOf<P, Path>;

/** What a filter path ends on: a field (with its TypeScript type) or a to-one relation (null checks only). */
type PathEnd<P, Path> = Path extends `${infer K}/${infer Rest}`
  ? PathEnd<NestedPolicyOf<P, K>, Rest>
  : Path extends FieldNames<P>
    ? { readonly field: FieldType<P, Path> }
    : { readonly relation: true };

/** The value operators of a comparison (`price gt 10`). */
export type ValueOperator =
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
  | 'iendswith';

/** Every operator a client comparison takes, written as in the filter text. */
export type ComparisonOperator = ValueOperator | 'in' | 'not in' | 'is null' | 'is not null';

/** A policy's operator name (`nin`, `null`) as the filter text writes it. */
type Written<O> = O extends ValueOperator
  ? O
  : O extends 'in'
    ? 'in'
    : O extends 'nin'
      ? 'not in'
      : O extends 'null'
        ? 'is null' | 'is not null'
        : never;

/** The operators path `Path` of P takes: those its field's type can take, or null checks on a to-one relation. */
export type OperatorAt<P, Path> = Path extends unknown
  ? PathEnd<P, Path> extends { readonly field: infer V }
    ? Written<OperatorsFor<V>>
    : 'is null' | 'is not null'
  : never;

/** A decimal or integer written as its exact text (`decimal('10.50')`): sent as a number, never through a float. */
export interface Decimal {
  readonly kind: 'decimal';
  readonly text: string;
}

/** Any value a literal may be made from. */
export type LiteralValue = string | number | bigint | boolean | Date | Decimal;

type Unwrapped<V> = V extends ScalarReference<infer U> ? NonNullable<U> : NonNullable<V>;

/**
 * The values a field of TypeScript type V is compared with: its own type (string unions and enums stay narrow),
 * numbers also as bigints and `decimal()`, dates also as strings (`'2024-01-15'`), strings also as `decimal()` (a
 * decimal column MikroORM types as `string`); any literal when the type says nothing.
 */
export type Operand<V> =
  IsAny<V> extends true
    ? LiteralValue
    : unknown extends V
      ? LiteralValue
      : [Unwrapped<V>] extends [boolean]
        ? boolean
        : [Unwrapped<V>] extends [number]
          ? Unwrapped<V> | bigint | Decimal
          : [Unwrapped<V>] extends [bigint]
            ? bigint | number | Decimal
            : [Unwrapped<V>] extends [Date]
              ? Date | string
              : [Unwrapped<V>] extends [string]
                ? Unwrapped<V> | Decimal
                : LiteralValue;

type TextOperator = 'contains' | 'startswith' | 'endswith' | 'ieq' | 'ine' | 'icontains' | 'istartswith' | 'iendswith';

/** The TypeScript type of the field a filter path ends on (of every field it may end on, for a union of paths). */
type ValueAt<P, Path> = Path extends unknown
  ? PathEnd<P, Path> extends { readonly field: infer V }
    ? V
    : never
  : never;

/**
 * What follows the operator: nothing for null checks, a list for `in` and `not in`, a string for the text operators,
 * else one value of the field's type. Decided by the operator alone, so a wrong path is reported at the path.
 */
export type OperandsFor<P, Path, O> = O extends 'is null' | 'is not null'
  ? []
  : O extends 'in' | 'not in'
    ? [values: readonly Operand<ValueAt<P, Path>>[]]
    : O extends TextOperator
      ? [value: string]
      : [value: Operand<ValueAt<P, Path>>];
