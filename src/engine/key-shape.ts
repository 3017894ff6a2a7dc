import type { EntityProperty, Platform } from '@mikro-orm/core';
import { keepsTimeZone, scalarShapeOf } from '../bind/field-kind.ts';
import type { BoundField, BoundSchema, FieldKind } from '../bind/types.ts';
import { invalidSchema } from '../errors.ts';

/** What a cursor needs to know about one sort column to read, write and compare its value exactly. */
export interface KeyShape {
  readonly kind: FieldKind;
  /** Datetime columns only: whether the column keeps a time zone (PostgreSQL `timestamptz`). */
  readonly timezone: boolean;
  /** Enum columns only: whether the items are numbers (a native numeric enum), so keys are integers. */
  readonly numericEnum: boolean;
}

/** Describe the sort column of an exposed field. */
export function shapeOfField(field: BoundField): KeyShape {
  return Object.freeze({
    kind: field.kind,
    timezone: field.timezone === true,
    numericEnum: field.kind === 'enum' && (field.enumItems ?? []).every((item) => typeof item === 'number'),
  });
}

/**
 * Describe every primary-key column of the root, by column name; refuses (invalid_schema) a key column whose type
 * listql cannot carry in a cursor. A key that is an m:1 relation takes the type of the column it references.
 */
export function primaryKeyShapes(bound: BoundSchema): ReadonlyMap<string, KeyShape> {
  const shapes = new Map<string, KeyShape>();
  for (const key of bound.primaryKey) {
    const prop = bound.meta.properties[key.property];
    const shape = prop && columnShape(prop, key.column, bound.platform, 0);
    if (!shape)
      throw invalidSchema(
        `${bound.entityName}.${key.property}: the primary key column has a type listql cannot carry in a cursor`,
      );
    shapes.set(key.column, shape);
  }
  return shapes;
}

function columnShape(prop: EntityProperty, column: string, platform: Platform, depth: number): KeyShape | undefined {
  if (prop.kind === 'scalar') {
    const shape = scalarShapeOf(prop, platform);
    if (!shape) return undefined;
    const items = prop.items ?? [];
    return Object.freeze({
      kind: shape.kind,
      timezone: shape.kind === 'datetime' && keepsTimeZone(prop),
      numericEnum: shape.kind === 'enum' && items.length > 0 && items.every((item) => typeof item === 'number'),
    });
  }
  // A relation key (m:1 / 1:1 owner): follow the join column to the target's primary key, a bounded number of hops.
  if (depth > 8 || !prop.targetMeta) return undefined;
  const columns = prop.joinColumns?.length ? prop.joinColumns : prop.fieldNames;
  const index = columns.indexOf(column);
  const referenced = prop.referencedColumnNames?.[index];
  if (index < 0 || referenced === undefined) return undefined;
  const target = prop.targetMeta.props.find((p) => p.primary && p.fieldNames?.includes(referenced));
  if (!target) return undefined;
  return columnShape(target, referenced, platform, depth + 1);
}
