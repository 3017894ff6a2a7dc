import type { EntityMetadata, EntityProperty } from '@mikro-orm/core';
import { invalidSchema } from '../errors.ts';
import { checkPublicName } from './bind-field.ts';
import type { DeclaredRelation } from './declarations.ts';

const RELATION_KINDS = new Set(['m:1', '1:1', '1:m', 'm:n']);

/**
 * Find the association a `relation()` names (by `serializedName`, then property name, or the `property` override)
 * and check that its metadata is complete, monomorphic and aimed at the nested policy's entity.
 */
export function bindRelationProperty(
  meta: EntityMetadata,
  entry: DeclaredRelation,
  nestedMeta: EntityMetadata,
): EntityProperty {
  const prop =
    entry.property === undefined
      ? (meta.props.find((p) => p.serializedName === entry.publicName) ?? meta.properties[entry.publicName])
      : meta.properties[entry.property];
  const wanted = entry.property ?? entry.publicName;
  if (!prop) throw invalidSchema(`${meta.className}.${wanted} does not exist`);
  const label = `${meta.className}.${prop.name}`;
  if (prop.hidden) throw invalidSchema(`${label} is hidden and cannot be exposed`);
  if (!RELATION_KINDS.has(prop.kind)) throw invalidSchema(`${label} is not a relation: use expose() for fields`);
  checkPublicName(label, entry.publicName);
  if (isPolymorphic(prop)) throw invalidSchema(`${label} is a polymorphic association, which listql does not support`);
  checkComplete(prop, label);
  const target = prop.targetMeta as EntityMetadata;
  if (target.class !== nestedMeta.class)
    throw invalidSchema(
      `${label} targets ${target.className}, but the nested policy '${entry.publicName}' is for ${nestedMeta.className}`,
    );
  return prop;
}

function isPolymorphic(prop: EntityProperty): boolean {
  if (prop.polymorphic || (prop.polymorphTargets?.length ?? 0) > 0) return true;
  // The inverse side of a polymorphic owner is just as ambiguous.
  const owner = prop.mappedBy ? prop.targetMeta?.properties[prop.mappedBy] : undefined;
  return owner?.polymorphic === true;
}

/** Refuse metadata that cannot be correlated: each kind needs the columns the planner will use (see the traps). */
function checkComplete(prop: EntityProperty, label: string): void {
  const incomplete = (what: string) => invalidSchema(`${label} has incomplete relationship metadata: ${what}`);
  const target = prop.targetMeta;
  if (!target) throw incomplete('no target entity');
  switch (prop.kind) {
    case 'm:1':
      if (!prop.joinColumns?.length) throw incomplete('no join columns');
      return;
    case '1:1': {
      if (prop.owner) {
        if (!prop.joinColumns?.length) throw incomplete('no join columns');
        return;
      }
      // The inverse side's joinColumns name no real column: the owner side holds the key.
      const owner = prop.mappedBy ? target.properties[prop.mappedBy] : undefined;
      if (!owner?.joinColumns?.length) throw incomplete('no owning side (mappedBy) with join columns');
      return;
    }
    case '1:m': {
      // 1:m joinColumns are not real columns either: the foreign key sits on the target's mappedBy property.
      const owner = prop.mappedBy ? target.properties[prop.mappedBy] : undefined;
      if (!owner?.fieldNames?.length) throw incomplete('no mappedBy property with a foreign key on the target');
      return;
    }
    case 'm:n':
      if (!prop.pivotTable || !prop.joinColumns?.length || !prop.inverseJoinColumns?.length)
        throw incomplete('no pivot table or pivot join columns');
      return;
    default:
      throw incomplete(`unexpected kind ${prop.kind}`);
  }
}
