import type { BoundSchema, FieldKind, Operator } from '../bind/types.ts';
import type { Limits } from '../limits.ts';
import { OPERATORS } from '../policy/options.ts';
import type { EngineSettings } from './config.ts';

/** A public field: its name, kind, and what clients may do with it. */
export interface FieldDescription {
  readonly name: string;
  readonly kind: FieldKind;
  readonly nullable: boolean;
  readonly filterable: boolean;
  /** Declared operators, in a fixed order; `nin` is written `not in`, `null` enables `is null` / `is not null`. */
  readonly operators: readonly Operator[];
  readonly sortable: boolean;
  /** Enum fields only: the values a literal may take. */
  readonly values?: readonly (string | number)[];
}

/** A public relation: its name, cardinality (`one` can be filtered and sorted through, `many` takes any/all). */
export interface RelationDescription {
  readonly name: string;
  readonly cardinality: 'one' | 'many';
  readonly schema: SchemaDescription;
}

/** What a policy exposes, in declaration order. */
export interface SchemaDescription {
  readonly fields: readonly FieldDescription[];
  readonly relations: readonly RelationDescription[];
}

/** The public description of an endpoint: what describe() returns and toOpenAPI() reads. */
export interface EngineDescription extends SchemaDescription {
  readonly capabilities: {
    readonly count: boolean;
    readonly search: boolean;
    readonly cursor: true;
    readonly offset: true;
  };
  readonly limits: Limits & {
    readonly defaultLimit: number;
    readonly maxLimit: number;
    readonly maxOffset: number;
  };
}

/**
 * Describe an engine's endpoint as detached, frozen plain data: public names, kinds, operators, sortability,
 * relations with their nested descriptions, capabilities and effective limits. It names no table, column or
 * property: only what clients already see.
 */
export function describeEngine(bound: BoundSchema, settings: EngineSettings<any>): EngineDescription {
  return deepFreeze({
    ...describeSchema(bound),
    capabilities: { count: settings.allowCount, search: settings.search !== undefined, cursor: true, offset: true },
    limits: { ...settings.paging, ...settings.limits },
  });
}

function describeSchema(bound: BoundSchema): SchemaDescription {
  const fields = [...bound.fields.values()].map((f): FieldDescription => {
    const described: FieldDescription = {
      name: f.publicName,
      kind: f.kind,
      nullable: f.nullable,
      filterable: f.filterable,
      operators: OPERATORS.filter((op) => f.operators.has(op)),
      sortable: f.sortable,
    };
    return f.enumItems ? { ...described, values: [...f.enumItems] } : described;
  });
  const relations = [...bound.relations.values()].map(
    (r): RelationDescription => ({ name: r.publicName, cardinality: r.cardinality, schema: describeSchema(r.target) }),
  );
  return { fields, relations };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
