import type { EntityProperty } from '@mikro-orm/core';
import { invalidSchema } from '../errors.ts';
import type { BoundFacet, BoundSchema } from './bound-schema.ts';
import type { RelationFacetOptions } from './options.ts';

const FACET_OPTIONS: readonly string[] = ['label'];

/**
 * Check a relation's `facet` option against its target; undefined when the relation is no facet. A facet's value is
 * the related row's primary key, so the target needs a primary key of one scalar column; `label` must name a field
 * the nested policy exposes. Throws `invalid_schema` naming `label` (Entity.property).
 */
export function bindFacet(
  label: string,
  facet: RelationFacetOptions | undefined,
  prop: EntityProperty,
  target: BoundSchema,
): BoundFacet | undefined {
  if (facet === undefined) return undefined;
  if (typeof facet !== 'object' || facet === null)
    throw invalidSchema(`${label}: facet must be true or an object of facet options`);
  for (const key of Object.keys(facet))
    if (!FACET_OPTIONS.includes(key))
      throw invalidSchema(`${label}: unknown facet option '${key}' (known: ${FACET_OPTIONS.join(', ')})`);
  const keys = target.meta.primaryKeys;
  const key = keys.length === 1 ? target.meta.properties[keys[0]!] : undefined;
  if (key?.kind !== 'scalar' || key.fieldNames?.length !== 1)
    throw invalidSchema(
      `${label}: a facet counts related rows by their key, and ${target.entityName} has no primary key of one scalar column`,
    );
  if (prop.kind === '1:1' && !prop.owner && !prop.mappedBy)
    throw invalidSchema(`${label}: the inverse side of a 1:1 relation needs mappedBy to be a facet`);
  const base = { keyColumn: key.fieldNames[0] as string, keyProperty: key.name };
  if (facet.label === undefined) return Object.freeze(base);
  if (typeof facet.label !== 'string') throw invalidSchema(`${label}: facet label must be a field name`);
  const field = target.fields.get(facet.label);
  if (!field)
    throw invalidSchema(
      `${label}: facet label '${facet.label}' is not a field the nested policy of ${target.entityName} exposes`,
    );
  return Object.freeze({ ...base, label: field });
}
