import { errorAt, type ListError, limitExceeded } from '../errors.ts';
import { isIdentPart, isIdentStart, showToken } from './keywords.ts';

/**
 * `fields` written in code, the object form of the REST text: `['id', 'title', { author: ['name'] }]` is
 * `id,title,author(name)`. A string is one name; an object's keys are relations, each with the names selected inside
 * it (`{ reviews: ['stars'] }` is `reviews(stars)`), or aliases, each with one relation (`{ best: { reviews: ['stars']
 * } }` is `best:reviews(stars)`). The engine's types check the names against the policy (docs/selection.md, In code).
 */
export type FieldsObject = readonly FieldsEntry[];

/** One entry of the object form of `fields`: a name, or an object of nested selections. */
export type FieldsEntry = string | FieldsGroup;

/** Nested selections by relation (`{ author: ['name'] }`), or by alias (`{ best: { reviews: ['stars'] } }`). */
export interface FieldsGroup {
  readonly [key: string]: FieldsObject | FieldsAlias;
}

/** The value of an alias in the object form of `fields`: exactly one relation and its selection. */
export interface FieldsAlias {
  readonly [relation: string]: FieldsObject;
}

/**
 * The object form of a request with its `fields` written as text when given as an array (`{ fields: ['id', {
 * author: ['name'] }] }`), so that parseHTTP reads one syntax; other requests as they are. For requests written in
 * code only: in a request's own values (fromQueryString), an array is a parameter given more than once.
 */
export function withFieldsText<V extends object>(values: V, maxLength: number): V {
  const fields: unknown = (values as { readonly fields?: unknown }).fields;
  if (!Array.isArray(fields)) return values;
  return { ...values, fields: fieldsObjectText(fields, maxLength) };
}

/** One list of entries being written: where its next entry is, and the keys of an object entry not yet written. */
interface Frame {
  readonly entries: readonly unknown[];
  index: number;
  written: number;
  readonly pending: [string, unknown][];
}

/**
 * Write the object form of `fields` as its REST text, for the one parser of `fields` to read: every rule of the
 * text (depth, empty lists, keys given twice, whether a name exists) is checked there, and its errors point into
 * this text. Here only what the text cannot say is refused, as `invalid_parameter` at that place in the text: a
 * string that is not one name, an entry that is neither a string nor a plain object, an object without keys, an
 * alias without exactly one relation. The text stops growing past `maxLength` UTF-16 units (`limit_exceeded`), so
 * even a cyclic object ends. One loop with an explicit stack: no recursion, however deep the object.
 *
 * @example fieldsObjectText(['id', { author: ['name'] }, { best: { reviews: ['stars'] } }])
 * // 'id,author(name),best:reviews(stars)'
 */
export function fieldsObjectText(fields: FieldsObject, maxLength = Number.POSITIVE_INFINITY): string {
  let text = '';
  const stack: Frame[] = [frame(fields)];
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    const unit = nextUnit(top, text);
    if (unit === undefined) {
      stack.pop();
      if (stack.length > 0) text += ')';
      continue;
    }
    if (top.written++ > 0) text += ',';
    if (typeof unit === 'string') text = withName(text, unit);
    else {
      const [key, value] = unit;
      const nested = selectionOf(text, key, value);
      text = nested.text;
      stack.push(frame(nested.entries));
    }
    if (text.length > maxLength) throw limitExceeded(`query is longer than ${maxLength} bytes`, 'fields');
  }
  return text;
}

function frame(entries: readonly unknown[]): Frame {
  return { entries, index: 0, written: 0, pending: [] };
}

/** The next name or `[key, value]` of a list, the keys of an object entry one by one; undefined at its end. */
function nextUnit(top: Frame, text: string): string | [string, unknown] | undefined {
  const pending = top.pending.shift();
  if (pending !== undefined) return pending;
  if (top.index >= top.entries.length) return undefined;
  const entry = top.entries[top.index++];
  if (typeof entry === 'string') return entry;
  const at = top.written > 0 ? `${text},` : text;
  if (!isPlainObject(entry)) throw invalidAt(at, 'an entry of fields is a name or an object of nested selections');
  const [first, ...rest] = Object.entries(entry);
  if (first === undefined) throw invalidAt(at, 'an object in fields names at least one relation');
  top.pending.push(...rest);
  return first;
}

/**
 * Write `key(` for a relation's selection (`{ key: [...] }`), or `key:relation(` for an alias (`{ key: { relation:
 * [...] } }`), and give the entries to write inside the parentheses.
 */
function selectionOf(before: string, key: string, value: unknown): { text: string; entries: readonly unknown[] } {
  const named = withName(before, key);
  if (Array.isArray(value)) return { text: `${named}(`, entries: value };
  const relations = isPlainObject(value) ? Object.entries(value) : [];
  const [relation] = relations;
  if (relations.length !== 1 || relation === undefined) {
    const message = `the value of ${showToken(key)} in fields is a list of names, or one relation with its list (an alias)`;
    throw invalidAt(before, message);
  }
  const aliased = withName(`${named}:`, relation[0]);
  if (!Array.isArray(relation[1])) {
    throw invalidAt(`${named}:`, `the value of ${showToken(relation[0])} in fields is a list of names`);
  }
  return { text: `${aliased}(`, entries: relation[1] };
}

/** Append a name, refusing a string that is not one (`'id,title'`, `'author(name)'`: one name per string). */
function withName(before: string, name: string): string {
  let ok = name.length > 0 && isIdentStart(name.charCodeAt(0));
  for (let i = 1; ok && i < name.length; i++) ok = isIdentPart(name.charCodeAt(i));
  if (!ok)
    throw invalidAt(before, `${showToken(name)} is not a name: the object form of fields takes one name per string`);
  return before + name;
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** An error at the end of the text written so far, where the faulty entry's text would start. */
function invalidAt(before: string, message: string): ListError {
  return errorAt('invalid_parameter', message, 'fields', before, before.length);
}
