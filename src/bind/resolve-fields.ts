import { type EntityProperty, ReferenceKind } from '@mikro-orm/core';
import { errorAtPosition, type ListError } from '../errors.ts';
import { publicNameOf } from '../policy/bind-field.ts';
import type { Ident } from '../syntax/ast.ts';
import { suggestion } from './suggest.ts';
import type { BoundRelation, BoundSchema, SelectedField } from './types.ts';

/**
 * Resolve the names of `fields` to root properties: each must be an exposed, selectable field, a primary-key
 * property (which every item carries anyway), or an exposed to-one relation whose key the root row holds (items
 * carry that key under its serialized name); throws `unknown_field` or `field_not_selectable` at the name. Names
 * with a nested selection (`author(name)`) are resolve-selection.ts's; this resolves the flat names of one level.
 *
 * @example resolveFields(bound, parseFields('title,price')) // [{ publicName: 'title', property: 'title' }, …]
 */
export function resolveFields(bound: BoundSchema, names: readonly Ident[]): readonly SelectedField[] {
  return names.map(({ name, span }) => {
    const position = { offset: span.offset, line: span.line, column: span.column };
    const field = bound.fields.get(name);
    if (field?.selectable) return { publicName: name, property: field.property };
    const key = primaryKeyNamed(bound, name);
    if (key) return key;
    if (field) return fail('field_not_selectable', `field '${name}' cannot be selected with fields`, position);
    const relation = bound.relations.get(name);
    if (relation) {
      const itemKey = relationItemKey(relation);
      if (itemKey !== undefined) return { publicName: itemKey, property: relation.property };
      const why = relation.cardinality === 'many' ? 'a to-many relation' : 'a to-one relation whose key items lack';
      // A relation the policy lets clients select takes its fields in parentheses: say how.
      const hint = relation.selection ? `; select its objects with ${name}(…)` : '';
      return fail('field_not_selectable', `'${name}' is ${why}: fields cannot select it${hint}`, position);
    }
    const usable = [...selectableNames(bound)];
    return fail('unknown_field', `unknown field ${shown(name)}${suggestion(name, usable)}`, position);
  });
}

/** The public names `fields` accepts: the primary key's, every selectable exposed field's, then to-one relations'. */
export function selectableNames(bound: BoundSchema): Set<string> {
  const names = new Set(bound.meta.primaryKeys.map((pk) => publicNameOf(bound.meta.properties[pk]!)));
  for (const f of bound.fields.values()) if (f.selectable) names.add(f.publicName);
  for (const r of bound.relations.values()) if (relationItemKey(r) !== undefined) names.add(r.publicName);
  return names;
}

/**
 * The item key under which items carry a relation's key (its serialized name), or undefined when items carry none:
 * only an m:1 or an owning 1:1 has a column on the root row; collections and inverse sides are left out of items.
 */
export function relationItemKey(relation: BoundRelation): string | undefined {
  return holdsKey(relation.prop) ? publicNameOf(relation.prop) : undefined;
}

function holdsKey(prop: EntityProperty): boolean {
  if (prop.hidden) return false;
  return prop.kind === ReferenceKind.MANY_TO_ONE || (prop.kind === ReferenceKind.ONE_TO_ONE && prop.owner === true);
}

function primaryKeyNamed(bound: BoundSchema, name: string): SelectedField | undefined {
  for (const pk of bound.meta.primaryKeys) {
    const prop = bound.meta.properties[pk]!;
    if (publicNameOf(prop) === name && !prop.hidden) return { publicName: name, property: prop.name };
  }
  return undefined;
}

function fail(code: 'unknown_field' | 'field_not_selectable', message: string, position: ListError['position']): never {
  throw errorAtPosition(code, message, 'fields', position);
}

/** Quote a client-written name, cut short so that messages never echo large input. */
function shown(name: string): string {
  return `'${name.length > 64 ? `${name.slice(0, 64)}…` : name}'`;
}
