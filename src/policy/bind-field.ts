import type { EntityMetadata, EntityProperty, Platform } from '@mikro-orm/core';
import type { Dialect } from '../dialect/index.ts';
import { invalidSchema } from '../errors.ts';
import type { BoundField } from './bound-schema.ts';
import type { ExposedField } from './declarations.ts';
import { defaultOperators, keepsTimeZone, operatorFits, scalarShapeOf } from './field-kind.ts';
import { OPERATORS, type Operator } from './options.ts';
import { IDENTIFIER, RESERVED_WORDS } from './reserved.ts';

/** The name clients see for a property: its `serializedName`, else its name. */
export function publicNameOf(prop: EntityProperty): string {
  return prop.serializedName ?? prop.name;
}

/** Refuse public names clients could not write in a path, or that the grammar reserves; `label` is Entity.property. */
export function checkPublicName(label: string, publicName: string): void {
  if (!IDENTIFIER.test(publicName))
    throw invalidSchema(`${label}: public name '${publicName}' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)`);
  if (RESERVED_WORDS.has(publicName))
    throw invalidSchema(`${label}: public name '${publicName}' is a reserved word of the filter language`);
}

/**
 * Find the scalar an `expose()` names and resolve its type and capabilities; throws invalid_schema.
 *
 * size: one check per way a policy can misname or mistype a field, each with its own message, in a row.
 */
export function bindField(meta: EntityMetadata, entry: ExposedField, platform: Platform, dialect: Dialect): BoundField {
  const name = entry.publicName;
  const prop = meta.props.find((p) => publicNameOf(p) === name);
  if (!prop) {
    const byName = meta.properties[name];
    if (byName?.hidden) throw invalidSchema(`${meta.className}.${name} is hidden and cannot be exposed`);
    if (byName)
      throw invalidSchema(
        `${meta.className}.${name} is serialized as '${publicNameOf(byName)}': expose it under that name`,
      );
    throw invalidSchema(`${meta.className}.${name} does not exist`);
  }
  const label = `${meta.className}.${prop.name}`;
  if (prop.hidden) throw invalidSchema(`${label} is hidden and cannot be exposed`);
  checkPublicName(label, name);
  if (prop.kind !== 'scalar') {
    const what = prop.kind === 'embedded' ? 'an embedded property, which listql cannot filter or sort' : 'a relation';
    throw invalidSchema(`${label} is ${what}${prop.kind === 'embedded' ? '' : ': use relation() instead of expose()'}`);
  }
  if (prop.persist === false || prop.formula)
    throw invalidSchema(`${label} is not a persisted column and cannot be exposed`);
  if (prop.fieldNames?.length !== 1) throw invalidSchema(`${label} does not map to exactly one column`);
  const shape = scalarShapeOf(prop, platform, dialect);
  if (!shape) throw invalidSchema(`${label} has type '${typeName(prop)}', which listql cannot filter or sort`);
  const nullable = prop.nullable === true;
  const operators = new Set<Operator>();
  let filterable = false;
  let sortable = false;
  let sortCaseInsensitive = false;
  let selectable = true;
  let facetable = false;
  for (const option of entry.options) {
    if (option.kind === 'sortable') {
      sortable = true;
      if (option.caseInsensitive && shape.kind !== 'string')
        throw invalidSchema(`${label}: a case-insensitive sort needs a string field, not one of kind ${shape.kind}`);
      sortCaseInsensitive ||= option.caseInsensitive === true;
    } else if (option.kind === 'selectable') selectable = option.enabled;
    else if (option.kind === 'facetable') facetable = true;
    else {
      filterable = true;
      for (const op of option.operators ?? defaultOperators(shape.kind, nullable)) {
        if (!OPERATORS.includes(op)) throw invalidSchema(`${label}: unknown operator '${String(op)}'`);
        if (!operatorFits(op, shape.kind, nullable)) {
          const why = op === 'null' ? 'the column is not nullable' : `the field is of kind ${shape.kind}`;
          throw invalidSchema(`${label}: operator '${op}' does not fit (${why})`);
        }
        operators.add(op);
      }
    }
  }
  const field: BoundField = {
    publicName: name,
    property: prop.name,
    column: prop.fieldNames[0] as string,
    kind: shape.kind,
    nullable,
    operators,
    filterable,
    sortable,
    ...(sortCaseInsensitive ? { sortCaseInsensitive } : {}),
    selectable,
    ...(facetable ? { facetable } : {}),
    prop,
    ...(shape.kind === 'enum' ? { enumItems: Object.freeze([...(prop.items ?? [])]) } : {}),
    ...(shape.range ? { range: shape.range } : {}),
    ...(shape.kind === 'datetime' ? { timezone: keepsTimeZone(prop) } : {}),
  };
  return Object.freeze(field);
}

function typeName(prop: EntityProperty): string {
  const type = prop.customType?.constructor.name ?? prop.type;
  return typeof type === 'string' ? type : String(prop.columnTypes?.[0] ?? 'unknown');
}
