import { relationItemKey, selectableNames } from '../../bind/resolve-fields.ts';
import type { BoundSchema, FieldKind, Operator } from '../../bind/types.ts';
import type { Dialect } from '../../dialect/index.ts';
import type { Limits } from '../../limits.ts';
import { OPERATORS } from '../../policy/options.ts';
import type { EngineSettings } from '../config.ts';
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
  /** Whether `fields=` may pick it (root fields only; see `selectable` of the endpoint). */
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
   * Root to-one relations whose key items carry (m:1, owning 1:1): the item key holding it (the property's serialized
   * name, which a `relation(name, policy, { property })` may make differ from `name`). `fields=<name>` picks it.
   */
  readonly itemKey?: string;
  readonly schema: SchemaDescription;
}

/** What a policy exposes, in declaration order. */
export interface SchemaDescription {
  readonly fields: readonly FieldDescription[];
  readonly relations: readonly RelationDescription[];
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
    ...describeSchema(bound, true),
    ...(defaultSort === undefined ? {} : { defaultSort }),
    selectable: [...selectableNames(bound)],
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
    },
    item: describeItem(bound.meta, bound.platform, dialect),
  });
}

function describeSchema(bound: BoundSchema, root = false): SchemaDescription {
  const fields = [...bound.fields.values()].map((f): FieldDescription => {
    const described: FieldDescription = {
      name: f.publicName,
      kind: f.kind,
      nullable: f.nullable,
      filterable: f.filterable,
      operators: OPERATORS.filter((op) => f.operators.has(op)),
      sortable: f.sortable,
      selectable: f.selectable,
    };
    return f.enumItems ? { ...described, values: [...f.enumItems] } : described;
  });
  const relations = [...bound.relations.values()].map((r): RelationDescription => {
    // `fields` names root properties only: a nested relation's key is not selectable.
    const itemKey = root ? relationItemKey(r) : undefined;
    return {
      name: r.publicName,
      cardinality: r.cardinality,
      ...(r.nullCheck ? { nullCheck: true as const } : {}),
      ...(itemKey === undefined ? {} : { itemKey }),
      schema: describeSchema(r.target),
    };
  });
  return { fields, relations };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
