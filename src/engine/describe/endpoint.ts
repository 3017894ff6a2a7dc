import type { Platform } from '@mikro-orm/core';
import { relationItemKey, selectableNames } from '../../bind/resolve-fields.ts';
import type { BoundRelation, BoundSchema, FieldKind, Operator } from '../../bind/types.ts';
import { type Dialect, engineRequestTimeout } from '../../dialect/index.ts';
import type { Limits } from '../../limits.ts';
import { publicNameOf } from '../../policy/bind-field.ts';
import { OPERATORS } from '../../policy/options.ts';
import type { EngineSettings } from '../config.ts';
import { describeFacets, type FacetDescription } from './facets.ts';
import { describeItem, type ItemDescription } from './item.ts';

/** A public field: its name, kind, and what clients may do with it. */
export interface FieldDescription {
  readonly name: string;
  readonly kind: FieldKind;
  readonly nullable: boolean;
  readonly filterable: boolean;
  /** Declared operators, in a fixed order; `nin` is written `not in`, `null` enables `is null` / `is not null`. */
  readonly operators: readonly Operator[];
  readonly sortable: boolean;
  /** Present (true) when clients may also sort it case-insensitively (`sort=title:ci`). */
  readonly sortCaseInsensitive?: true;
  /** Whether `fields=` may pick it (at the root, and inside selectable relations; see `selectable`). */
  readonly selectable: boolean;
  /** Enum fields only: the values a literal may take. */
  readonly values?: readonly (string | number)[];
}

/** A public relation: its name, cardinality (`one` can be filtered and sorted through, `many` takes any/all). */
export interface RelationDescription {
  readonly name: string;
  readonly cardinality: 'one' | 'many';
  /** Present (true) when clients may write `<name> is null` / `is not null` (`relation(…, { nullCheck: true })`). */
  readonly nullCheck?: true;
  /**
   * To-one relations whose key items carry (m:1, owning 1:1), at the root and inside a selectable relation's schema:
   * the item key holding it (the property's serialized name, which a `relation(name, policy, { property })` may make
   * differ from `name`). `fields=<name>` picks it at that level.
   */
  readonly itemKey?: string;
  /**
   * Present when clients may select the related objects themselves (`fields=author(name)`, `reviews(stars)`; the
   * policy's `selectable(…)` on the relation), reached from the root through selectable relations only. Its `schema`
   * then carries `selectable` and `item`, as the root does.
   */
  readonly select?: RelationSelectDescription;
  /**
   * To-many relations whose policy opts into aggregates: the calls clients may use in `filter` and `sort`, as they
   * write them (`reviews/count()`, `reviews/avg(stars)`); an inner filter may follow (`reviews/count(r: …)`).
   */
  readonly aggregates?: readonly string[];
  readonly schema: SchemaDescription;
}

/**
 * How a selectable relation may be selected. A to-one relation gives an object (or null) and takes no list
 * parameters: `count` is false and the limits are absent. A to-many relation gives a page per parent.
 */
export interface RelationSelectDescription {
  /** To-many: the most rows `<path>.limit` may ask for, per parent. */
  readonly maxLimit?: number;
  /** To-many: rows per parent when `<path>.limit` is absent. */
  readonly defaultLimit?: number;
  /** To-many: the order when `<path>.sort` is absent, as a sort value of the nested policy; then the key. */
  readonly defaultSort?: string;
  /** To-many: whether `<path>.count=true` (GraphQL `totalCount`) is enabled. Always false for to-one. */
  readonly count: boolean;
}

/** What a policy exposes, in declaration order. */
export interface SchemaDescription {
  readonly fields: readonly FieldDescription[];
  readonly relations: readonly RelationDescription[];
  /**
   * The names a selection at this level may pick: the primary key's, then every selectable field's, then every to-one
   * relation's whose key items carry. Present at the root and in the schema of a selectable relation.
   */
  readonly selectable?: readonly string[];
  /** The primary key's public names (the item keys that hold it), in metadata order; present where `selectable` is. */
  readonly key?: readonly string[];
  /** The JSON shape of this level's items; present where `selectable` is. */
  readonly item?: ItemDescription;
}

/** The public description of an endpoint: what describe() returns and toOpenAPI() reads. */
export interface EngineDescription extends SchemaDescription {
  /** The order used when a request has no `sort` (engine option `defaultSort`), as a `sort` value; then the key. */
  readonly defaultSort?: string;
  /**
   * The names `fields=` accepts: the primary key's (always in items), then every selectable field's, then every root
   * to-one relation's whose key items carry (see RelationDescription.itemKey).
   */
  readonly selectable: readonly string[];
  readonly key: readonly string[];
  /** The names `facets=` accepts, with the shapes of their values (docs/facets.md); empty when none is opened. */
  readonly facets: readonly FacetDescription[];
  readonly capabilities: {
    readonly count: boolean;
    /** `count=estimated`: enabled (`allowEstimatedCount`) and available on this database (PostgreSQL). */
    readonly estimatedCount: boolean;
    readonly search: boolean;
    readonly cursor: true;
    /** Pages carry `prevCursor`, which pages back (see docs/pagination.md). */
    readonly backward: true;
    readonly offset: true;
  };
  readonly limits: Limits & {
    readonly defaultLimit: number;
    readonly maxLimit: number;
    readonly maxOffset: number;
    /** Milliseconds a data or count query may run on a server database; absent when none is set, and on SQLite. */
    readonly statementTimeout?: number;
    /** Milliseconds all statements of one request may run together (`requestTimeout`); absent when there is none. */
    readonly requestTimeout?: number;
  };
  /** The JSON shape of each item: every serialized property under its public key (see docs/openapi.md). */
  readonly item: ItemDescription;
}

/**
 * Describe an engine's endpoint as detached, frozen plain data: public names, kinds, operators, sortability,
 * relations with their nested descriptions, capabilities, effective limits and the item shape. It names no table or
 * column, and no property a client does not already see in the items.
 */
export function describeEngine(
  bound: BoundSchema,
  dialect: Dialect,
  settings: EngineSettings<any>,
  defaultSort?: string,
): EngineDescription {
  return deepFreeze({
    ...describeSchema(bound, { platform: bound.platform, dialect }),
    ...(defaultSort === undefined ? {} : { defaultSort }),
    selectable: [...selectableNames(bound)],
    key: keyNames(bound),
    facets: describeFacets(bound, dialect),
    capabilities: {
      count: settings.allowCount,
      estimatedCount: settings.allowEstimatedCount && dialect.estimate !== undefined,
      search: settings.search !== undefined,
      cursor: true,
      backward: true,
      offset: true,
    },
    limits: {
      ...settings.paging,
      ...settings.limits,
      // SQLite cannot stop a running statement, so it never answers query_timeout: no timeout to describe there.
      ...(settings.statementTimeout === undefined || !dialect.stopsStatements
        ? {}
        : { statementTimeout: settings.statementTimeout }),
      ...withRequestTimeout(engineRequestTimeout(settings)),
    },
    item: describeItem(bound.meta, bound.platform, dialect),
  });
}

/** Set while describing a level clients may select (the root, and selectable relations below it). */
interface Selecting {
  readonly platform: Platform;
  readonly dialect: Dialect;
}

/** A schema, with its selectable names and item shape when `selecting` (the root adds its own `selectable`). */
function describeSchema(bound: BoundSchema, selecting?: Selecting): SchemaDescription {
  const fields = [...bound.fields.values()].map((f): FieldDescription => {
    const described: FieldDescription = {
      name: f.publicName,
      kind: f.kind,
      nullable: f.nullable,
      filterable: f.filterable,
      operators: OPERATORS.filter((op) => f.operators.has(op)),
      sortable: f.sortable,
      ...(f.sortCaseInsensitive ? { sortCaseInsensitive: true as const } : {}),
      selectable: f.selectable,
    };
    return f.enumItems ? { ...described, values: [...f.enumItems] } : described;
  });
  const relations = [...bound.relations.values()].map((r): RelationDescription => {
    // Keys are picked where a selection reaches: the root, and inside selectable relations.
    const itemKey = selecting ? relationItemKey(r) : undefined;
    const select = selecting ? describeSelect(r) : undefined;
    return {
      name: r.publicName,
      cardinality: r.cardinality,
      ...(r.nullCheck ? { nullCheck: true as const } : {}),
      ...(itemKey === undefined ? {} : { itemKey }),
      ...(select === undefined ? {} : { select }),
      ...(r.aggregates ? { aggregates: aggregateCalls(r) } : {}),
      schema: select === undefined ? describeSchema(r.target) : selectableSchema(r.target, selecting!),
    };
  });
  return { fields, relations };
}

/** The aggregate calls a relation allows, as a client writes them. */
function aggregateCalls(relation: BoundRelation): string[] {
  const calls = relation.aggregates?.count ? [`${relation.publicName}/count()`] : [];
  for (const [fn, fields] of Object.entries(relation.aggregates?.fields ?? {}))
    for (const field of fields) calls.push(`${relation.publicName}/${fn}(${field})`);
  return calls;
}

function selectableSchema(bound: BoundSchema, selecting: Selecting): SchemaDescription {
  return {
    ...describeSchema(bound, selecting),
    selectable: [...selectableNames(bound)],
    key: keyNames(bound),
    item: describeItem(bound.meta, selecting.platform, selecting.dialect),
  };
}

function keyNames(bound: BoundSchema): string[] {
  return bound.meta.primaryKeys.map((pk) => publicNameOf(bound.meta.properties[pk]!));
}

function describeSelect(relation: BoundRelation): RelationSelectDescription | undefined {
  const selection = relation.selection;
  if (selection === undefined) return undefined;
  if (relation.cardinality === 'one') return { count: false };
  return {
    maxLimit: selection.maxLimit,
    defaultLimit: selection.defaultLimit,
    ...(selection.defaultSortText === undefined ? {} : { defaultSort: selection.defaultSortText }),
    count: selection.allowCount,
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function withRequestTimeout(limit: number | undefined): { requestTimeout?: number } {
  return limit === undefined ? {} : { requestTimeout: limit };
}
