import type { EntityManager, EntityName, MikroORM } from '@mikro-orm/core';
import { bindPolicy } from './bind-policy.ts';
import type { BoundSchema } from './bound-schema.ts';
import type { ExposedField } from './declarations.ts';
import type { IsAny, OperatorsFor, RelationKey, RelationTargets, ScalarFields, TargetOf } from './entity-types.ts';
import type { OnlyKeys, RelationEntry, RelationTypes } from './exposed-types.ts';
import type {
  FieldOption,
  FilterableOption,
  RelationAggregates,
  RelationFacetOptions,
  RelationSelectableOption,
  RelationSelectOptions,
  SelectableOption,
} from './options.ts';

export type { ExposedField };

/** A nested policy, or a function returning one so that policies can refer to each other before they exist. */
export type NestedPolicy<T = any, F extends string = string, R extends RelationTypes = RelationTypes> =
  | Policy<T, F, R>
  | (() => Policy<T, F, R>);

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

/**
 * The options object `relation()` takes: `nullCheck` (to-one: `<name> is null`), and `select` to let clients select the
 * related objects (`true`, or a to-many relation's list options; `selectable(…)` is the shorthand for it).
 */
export interface RelationOptions {
  /** To-one relations: clients may write `<name> is null` / `<name> is not null` (docs/relationships.md). */
  readonly nullCheck?: boolean;
  /** Clients may select the related objects (`fields=author(name)`, `reviews(stars)`); see docs/policy.md. */
  readonly select?: boolean | RelationSelectOptions;
  /**
   * Clients may count the related rows by key beside a page (`facets=author`): `true`, or `{ label: 'name' }` to return
   * a field of the nested policy beside each key (docs/facets.md).
   */
  readonly facet?: boolean | RelationFacetOptions;
  /**
   * To-many relations: the aggregates clients may use in filter and sort (`reviews/count() gt 5`,
   * `sort=-reviews/avg(stars)`), by the nested policy's public field names; see docs/policy.md, Aggregates.
   */
  readonly aggregates?: RelationAggregates;
}

/** What `relation()` takes as its third argument: the options object, or `selectable(…)` for `{ select: … }`. */
export type RelationArgument = RelationOptions | SelectableOption | RelationSelectableOption;

/** `relation(publicName, nested, { property })`, as declared. */
export interface ExposedRelation {
  readonly kind: 'relation';
  readonly publicName: string;
  readonly nested: NestedPolicy;
  /** The association property this public name refers to, when it differs (`relation(name, policy, { property })`). */
  readonly property?: string;
  /** To-one relations: clients may write `<name> is null` / `<name> is not null` (docs/relationships.md). */
  readonly nullCheck?: boolean;
  /** Present when clients may select the related objects: the list options as written (`{}` for the defaults). */
  readonly select?: RelationSelectOptions;
  /** Present when clients may count the related rows by key (`facets=author`): the facet options as written. */
  readonly facet?: RelationFacetOptions;
  /** To-many relations: the aggregates clients may use in filter and sort, as declared. */
  readonly aggregates?: RelationAggregates;
}

/** One declaration of a policy, in the order written. */
export type PolicyEntry = ExposedField | ExposedRelation;

/** The field names a policy's type records as exposed (ExposedFields<typeof bookPolicy>: 'id' | 'title' | …). */
export type ExposedFields<P> = P extends Policy<any, infer F, any> ? F : never;

/** The relations a policy's type records as exposed, by public name (see RelationType). */
export type ExposedRelations<P> = P extends Policy<any, any, infer R> ? R : never;

/**
 * The whitelist of one entity: what clients may filter and sort, and through which relations. Immutable: every
 * method returns a new frozen policy. Nothing is checked against metadata until `bind()`.
 *
 * Its type records what it exposes, for the types of `fields` selections (docs/selection.md, In code): `F` the
 * exposed field names, `R` the relations. They are records, not constraints: any two policies of one entity are
 * assignable to each other, and `Policy<Book>`, which records nothing, means "any policy of Book".
 */
// biome-ignore lint/correctness/noUnusedVariables: F and R are read from the type arguments (ExposedFields, ExposedRelations); unused in the structure, they never decide assignability.
export class Policy<in out T = any, F extends string = string, R extends RelationTypes = RelationTypes> {
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
  ): Policy<T, ExposedFields<this> | N, ExposedRelations<this>> {
    const entry: ExposedField = Object.freeze({ kind: 'field', publicName, options: Object.freeze([...options]) });
    return new Policy(this.entity, [...this.entries, entry]);
  }

  /**
   * Expose a relation with its own nested policy. The public name resolves by `serializedName`, then by property
   * name; `property` names the association explicitly. `nullCheck` (to-one only) allows `<name> is null`;
   * `selectable(…)` (or `{ select }`) lets clients select the related objects (`fields=author(name)`).
   *
   * @example schema(Book).relation('author', authorPolicy).relation('writer', authorPolicy, { property: 'coAuthor' })
   * @example schema(Book).relation('reviews', reviewPolicy, selectable({ maxLimit: 20, defaultSort: '-stars' }))
   */
  relation<
    const N extends keyof RelationTargets<T> & string,
    E,
    NF extends string = string,
    NR extends RelationTypes = RelationTypes,
    const O extends RelationArgument | undefined = undefined,
  >(
    publicName: N,
    nested: NestedPolicy<E, NF, NR> & SameEntity<E, RelationTargets<T>[N]>,
    options?: O &
      NoInfer<OnlyKeys<O, 'nullCheck' | 'select' | 'facet' | 'aggregates' | 'kind' | 'enabled'>> &
      NoInfer<AggregatesOf<O, NF>>,
  ): Policy<T, ExposedFields<this>, ExposedRelations<this> & RelationEntry<T, N, Policy<E, NF, NR>, O>>;
  relation<
    const N extends string,
    const P extends RelationKey<T> & string,
    E,
    NF extends string = string,
    NR extends RelationTypes = RelationTypes,
    const O extends RelationOptions = RelationOptions,
  >(
    publicName: N,
    nested: NestedPolicy<E, NF, NR> & SameEntity<E, TargetOf<T, P>>,
    options: O & { readonly property: P } & NoInfer<
        OnlyKeys<O, 'nullCheck' | 'select' | 'facet' | 'aggregates' | 'property'>
      > &
      NoInfer<AggregatesOf<O, NF>>,
  ): Policy<T, ExposedFields<this>, ExposedRelations<this> & RelationEntry<T, N, Policy<E, NF, NR>, O, P>>;
  relation(
    publicName: string,
    nested: NestedPolicy,
    options: RelationArgument & { readonly property?: string } = {},
  ): Policy<T> {
    const { property, nullCheck, select, facet, aggregates } = relationOptions(options);
    const entry: ExposedRelation = Object.freeze({
      kind: 'relation',
      publicName,
      nested,
      ...(property === undefined ? {} : { property }),
      ...(nullCheck ? { nullCheck: true } : {}),
      ...(select === undefined ? {} : { select }),
      ...(facet === undefined ? {} : { facet }),
      ...(aggregates === undefined ? {} : { aggregates: freezeAggregates(aggregates) }),
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
export function schema<T extends object>(entity: EntityName<T>): Policy<T, never, Record<never, never>> {
  return new Policy<T, never, Record<never, never>>(entity);
}

/** Read relation()'s third argument: the options object, or a `selectable(…)` value standing for `{ select }`. */
function relationOptions(options: RelationArgument & { readonly property?: string }): {
  readonly property?: string | undefined;
  readonly nullCheck?: boolean | undefined;
  readonly select?: RelationSelectOptions | undefined;
  readonly facet?: RelationFacetOptions | undefined;
  readonly aggregates?: RelationAggregates | undefined;
} {
  if ('kind' in options) {
    if (options.kind === 'selectableRelation') return { select: options.select };
    if (options.kind === 'selectable') return options.enabled ? { select: EMPTY_SELECT } : {};
  }
  const { select, facet, ...rest } = options as RelationOptions & { readonly property?: string };
  const faceted =
    facet === undefined || facet === false ? {} : { facet: facet === true ? EMPTY_FACET : facetOf(facet) };
  if (select === undefined || select === false) return { ...rest, ...faceted };
  return { ...rest, ...faceted, select: select === true ? EMPTY_SELECT : Object.freeze({ ...select }) };
}

/** Copy a facet's options (checked at bind); anything but an object is kept as given, for bind to refuse. */
function facetOf(facet: RelationFacetOptions): RelationFacetOptions {
  return typeof facet === 'object' && facet !== null ? Object.freeze({ ...facet }) : facet;
}

const EMPTY_FACET: RelationFacetOptions = Object.freeze({});

const EMPTY_SELECT: RelationSelectOptions = Object.freeze({});

/**
 * Types only: the field lists of `aggregates` name fields the nested policy exposes (its recorded names `NF`); a
 * nested policy that records none (`Policy<Review>`) allows any string, and bind checks the names.
 */
export type AggregatesOf<O, NF extends string> = O extends { readonly aggregates: object }
  ? { readonly aggregates?: RelationAggregates<NF> }
  : unknown;

function freezeAggregates(aggregates: RelationAggregates): RelationAggregates {
  const copy: Record<string, unknown> = aggregates.count === undefined ? {} : { count: aggregates.count };
  for (const fn of ['sum', 'avg', 'min', 'max'] as const) {
    const list = aggregates[fn];
    if (list !== undefined) copy[fn] = Object.freeze([...list]);
  }
  return Object.freeze(copy) as RelationAggregates;
}
