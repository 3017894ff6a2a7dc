import type { EntityMetadata, EntityProperty, MetadataStorage } from '@mikro-orm/core';
import { errorAtPosition, type ListError } from '../errors.ts';
import type { Span } from '../syntax/ast.ts';

/** Two columns a correlated sub-query compares: `inner` on the sub-query's table, `outer` on the enclosing one. */
export interface ColumnPair {
  readonly inner: string;
  readonly outer: string;
}

/** The related table holds (or is pointed to by) the key: one table, correlated column by column. */
export interface DirectLink {
  readonly kind: 'direct';
  readonly target: EntityMetadata;
  readonly pairs: readonly ColumnPair[];
}

/** M:N: the pivot table is correlated to the enclosing row, and joined to the target through `targetProperty`. */
export interface PivotLink {
  readonly kind: 'pivot';
  readonly pivot: EntityMetadata;
  readonly target: EntityMetadata;
  /** Pivot columns (`inner`) against the enclosing row's columns (`outer`). */
  readonly pairs: readonly ColumnPair[];
  /** The pivot entity's m:1 property that points at the target. */
  readonly targetProperty: string;
}

/** How a relation's rows relate to the row it starts from. */
export type Link = DirectLink | PivotLink;

/**
 * Work out from metadata how to correlate a relation's rows to the row it starts from. Each kind reads the side
 * that names real columns (see the metadata traps): 1:m and 1:1 inverse use the owning m:1/1:1 on the target,
 * m:n uses the pivot entity's m:1 properties, matched by column names. Composite keys give several pairs.
 */
export function linkOf(prop: EntityProperty, metadata: MetadataStorage, span: Span): Link {
  // Metadata does not change once discovered: a property's link is worked out once (failures are thrown each time).
  let link = links.get(prop);
  if (link === undefined) {
    link = workOutLink(prop, metadata, span);
    links.set(prop, link);
  }
  return link;
}

const links = new WeakMap<EntityProperty, Link>();

function workOutLink(prop: EntityProperty, metadata: MetadataStorage, span: Span): Link {
  const target = prop.targetMeta as EntityMetadata | undefined;
  if (!target) throw unsupported(prop, span);
  switch (prop.kind) {
    case 'm:1':
      return { kind: 'direct', target, pairs: pairs(referenced(prop), prop.joinColumns, prop, span) };
    case '1:1': {
      if (prop.owner) return { kind: 'direct', target, pairs: pairs(referenced(prop), prop.joinColumns, prop, span) };
      const owner = ownerOf(prop, target, span);
      return { kind: 'direct', target, pairs: pairs(owner.joinColumns, referenced(owner), prop, span) };
    }
    case '1:m': {
      const owner = ownerOf(prop, target, span);
      const fk = owner.joinColumns?.length ? owner.joinColumns : owner.fieldNames;
      return { kind: 'direct', target, pairs: pairs(fk, referenced(owner), prop, span) };
    }
    case 'm:n':
      return pivotLink(prop, target, metadata, span);
    default:
      throw unsupported(prop, span);
  }
}

function pivotLink(prop: EntityProperty, target: EntityMetadata, metadata: MetadataStorage, span: Span): PivotLink {
  const owner = prop.owner ? prop : ownerOf(prop, target, span);
  if (!owner.pivotEntity) throw unsupported(prop, span);
  const pivot = metadata.get(owner.pivotEntity);
  // On the owner, joinColumns point at the owner's table and inverseJoinColumns at its target; the inverse swaps.
  const toOuter = prop.owner ? owner.joinColumns : owner.inverseJoinColumns;
  const toTarget = prop.owner ? owner.inverseJoinColumns : owner.joinColumns;
  const outerSide = pivotProperty(pivot, toOuter, prop, span);
  const targetSide = pivotProperty(pivot, toTarget, prop, span);
  return {
    kind: 'pivot',
    pivot,
    target,
    pairs: pairs(outerSide.fieldNames, referenced(outerSide), prop, span),
    targetProperty: targetSide.name,
  };
}

/** Pivot properties are named like `Book_owner`: match them by their columns instead. */
function pivotProperty(
  pivot: EntityMetadata,
  columns: readonly string[] | undefined,
  prop: EntityProperty,
  span: Span,
): EntityProperty {
  const wanted = (columns ?? []).join('\0');
  const found = pivot.props.find((p) => p.kind === 'm:1' && (p.fieldNames ?? []).join('\0') === wanted);
  if (!found || wanted === '') throw unsupported(prop, span);
  return found;
}

function ownerOf(prop: EntityProperty, target: EntityMetadata, span: Span): EntityProperty {
  const owner = prop.mappedBy ? target.properties[prop.mappedBy] : undefined;
  if (!owner) throw unsupported(prop, span);
  return owner;
}

/** The columns a foreign key points at: its referencedColumnNames, else its target's primary-key columns. */
function referenced(fk: EntityProperty): readonly string[] {
  if (fk.referencedColumnNames?.length) return fk.referencedColumnNames;
  return (fk.targetMeta?.getPrimaryProps() ?? []).flatMap((p) => p.fieldNames ?? []);
}

function pairs(
  inner: readonly string[] | undefined,
  outer: readonly string[] | undefined,
  prop: EntityProperty,
  span: Span,
): ColumnPair[] {
  if (!inner?.length || inner.length !== outer?.length) throw unsupported(prop, span);
  return inner.map((column, i) => ({ inner: column, outer: outer[i] as string }));
}

function unsupported(prop: EntityProperty, span: Span): ListError {
  return errorAtPosition('invalid_relationship', `relation '${prop.name}' cannot be correlated`, 'filter', span);
}
