import type { EntityProperty, Platform } from '@mikro-orm/core';
import type { ResolvedFacet } from '../../bind/types.ts';
import { scalarWriter } from '../../orm/item-writer.ts';
import { FACET_COLUMNS } from '../../plan/facet.ts';

/**
 * One value of a facet and the number of root rows that have it: `value` as items carry the field (or, for a relation
 * facet, the related row's key; null for the rows without one), `label` a field of the related row when the policy
 * names one.
 */
export interface FacetBucket {
  readonly value: unknown;
  readonly label?: unknown;
  readonly count: number;
}

/** The facets of a page by name: each facet's most frequent values, most frequent first. */
export type Facets = Readonly<Record<string, readonly FacetBucket[]>>;

/** Build the reader of one facet's rows: values and labels written as items write them, counts as numbers. */
export function facetReader(
  platform: Platform,
  facet: ResolvedFacet,
): (rows: readonly Record<string, unknown>[]) => FacetBucket[] {
  const target = facet.target;
  const valueProp =
    target.kind === 'field' ? target.field.prop : keyProp(target.relation.prop, target.facet.keyProperty);
  const value = writer(valueProp, platform);
  const label =
    target.kind === 'relation' && target.facet.label ? writer(target.facet.label.prop, platform) : undefined;
  return (rows) =>
    rows.map((row) => ({
      value: value(row[FACET_COLUMNS.value]),
      ...(label === undefined ? {} : { label: label(row[FACET_COLUMNS.label]) }),
      // PostgreSQL and MySQL answer counts as strings (bigint); SQLite as numbers.
      count: Number(row[FACET_COLUMNS.count]),
    }));
}

/** The related entity's key property of a relation facet. */
function keyProp(relation: EntityProperty, name: string): EntityProperty {
  const prop = relation.targetMeta?.properties[name];
  if (!prop) throw new Error(`listql: the key ${name} of a facet's relation is missing from metadata`);
  return prop;
}

/** Write a present value as items write the property (hydrated and serialized); NULL stays null. */
function writer(prop: EntityProperty, platform: Platform): (value: unknown) => unknown {
  const write = scalarWriter(prop, platform);
  return (value) => {
    if (value === null || value === undefined) return null;
    const out = write ? write(value) : value;
    // A value the item writer would leave to hydration (a symbol says so) is answered as the driver gave it.
    return typeof out === 'symbol' ? value : out;
  };
}
