import { fieldName } from './names.ts';

/**
 * Write the object form of `fields` as its text, as the server's own conversion does (docs/selection.md, In code):
 * a string is a name, `{ relation: [ … ] }` a nested selection, `{ alias: { relation: [ … ] } }` one under an alias.
 *
 * @example fieldsText(['title', { author: ['name'] }, { best: { reviews: ['stars'] } }])
 * // 'title,author(name),best:reviews(stars)'
 */
export function fieldsText(entries: unknown): string {
  if (!Array.isArray(entries) || entries.length === 0) throw new TypeError('fields: a list of one name or more');
  return entries.map((entry) => (typeof entry === 'string' ? fieldName(entry) : groupText(entry))).join(',');
}

/** `{ author: ['name'], best: { reviews: ['stars'] } }` as `author(name),best:reviews(stars)`. */
function groupText(group: unknown): string {
  const entries = plainEntries(group);
  if (entries.length === 0) throw new TypeError('fields: an entry is a name or an object of nested selections');
  return entries
    .map(([key, value]) => {
      if (Array.isArray(value)) return `${fieldName(key)}(${fieldsText(value)})`;
      const [relation, ...others] = plainEntries(value);
      if (relation === undefined || others.length > 0 || !Array.isArray(relation[1]))
        throw new TypeError(`fields: the alias '${key}' takes one relation and its list of names`);
      return `${fieldName(key)}:${fieldName(relation[0])}(${fieldsText(relation[1])})`;
    })
    .join(',');
}

function plainEntries(value: unknown): [string, unknown][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value);
}
