import { ListError } from '../errors.ts';
import type { Ident } from '../syntax/ast.ts';
import { publicNameOf } from './bind-field.ts';
import { suggestion } from './suggest.ts';
import type { BoundSchema, SelectedField } from './types.ts';

/**
 * Resolve the names of `fields` to root properties: each must be an exposed, selectable field, or a primary-key
 * property (which every item carries anyway); throws `unknown_field` or `field_not_selectable` at the name.
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
    const usable = [...selectableNames(bound)];
    return fail('unknown_field', `unknown field ${shown(name)}${suggestion(name, usable)}`, position);
  });
}

/** The public names `fields` accepts: the primary key's, then every selectable exposed field's. */
export function selectableNames(bound: BoundSchema): Set<string> {
  const names = new Set(bound.meta.primaryKeys.map((pk) => publicNameOf(bound.meta.properties[pk]!)));
  for (const f of bound.fields.values()) if (f.selectable) names.add(f.publicName);
  return names;
}

function primaryKeyNamed(bound: BoundSchema, name: string): SelectedField | undefined {
  for (const pk of bound.meta.primaryKeys) {
    const prop = bound.meta.properties[pk]!;
    if (publicNameOf(prop) === name && !prop.hidden) return { publicName: name, property: prop.name };
  }
  return undefined;
}

function fail(code: 'unknown_field' | 'field_not_selectable', message: string, position: ListError['position']): never {
  throw new ListError(code, message, { parameter: 'fields', position });
}

/** Quote a client-written name, cut short so that messages never echo large input. */
function shown(name: string): string {
  return `'${name.length > 64 ? `${name.slice(0, 64)}…` : name}'`;
}
