import { errorAtPosition, type ListError } from '../errors.ts';
import { DEFAULT_LIMITS, type Limits } from '../limits.ts';
import type { FieldSelection, Ident } from './ast.ts';
import { withHint } from './habits.ts';
import { isIdentPart, isIdentStart, isSpace, showChar, showToken, skipSpace } from './keywords.ts';
import { type Locator, locatorFor } from './locator.ts';

/** One level of parentheses being read: its entries so far and their output keys. */
interface Level {
  readonly items: FieldSelection[];
  readonly keys: Set<string>;
  /** The output key of the entry whose parentheses these are; undefined at the root. */
  readonly owner: string | undefined;
}

interface Scan {
  readonly text: string;
  readonly loc: Locator;
  readonly maxDepth: number;
  /** The open levels, the root first: the explicit stack that keeps the scanner free of recursion. */
  readonly levels: Level[];
}

type MutableSelection = { -readonly [K in keyof FieldSelection]: FieldSelection[K] };

const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN = 0x28;
const CLOSE = 0x29;
const SLASH = 0x2f;

/**
 * Parse a `fields` value (grammar.ohm, rule `fields`): names separated by commas, a name followed by a nested
 * selection in parentheses (`author(name)`), and an alias before such a name (`best:reviews(stars)`). Empty
 * parentheses, a trailing comma, an output key (alias, else name) twice at one level, an alias before a name without
 * parentheses, a path and an unbalanced parenthesis are `invalid_parameter`; nesting deeper than
 * `maxSelectionDepth` is `limit_exceeded` at the name that opens the level too many. Errors point, like filter
 * errors, at the end of the longest prefix that still fits the grammar (a repeated key at the repeat). Whether a
 * name exists and may be selected is decided later, against the policy.
 *
 * A flat list of names takes the plain loop it always took; anything else one pass with an explicit stack of
 * levels: no recursion, however deep the input.
 *
 * @example parseFields('id, title, best:reviews(stars)') // [id, title, reviews as best (stars)]
 */
export function parseFields(text: string, limits: Limits = DEFAULT_LIMITS): readonly FieldSelection[] {
  return flatNames(text) ?? scanFields(text, limits);
}

/**
 * The common case, a flat list of names, read by the plain loop such lists always had; undefined at the first thing
 * it does not handle (a parenthesis, an alias, a repeat, any fault), and the full scanner then reads the value from
 * its start, reporting any error.
 */
function flatNames(text: string): FieldSelection[] | undefined {
  const loc = locatorFor(text);
  const names: FieldSelection[] = [];
  const seen = new Set<string>();
  let i = skipSpace(text, 0);
  for (;;) {
    const start = i;
    if (!isIdentStart(text.charCodeAt(i))) return undefined;
    i++;
    while (isIdentPart(text.charCodeAt(i))) i++;
    const name = text.slice(start, i);
    if (seen.has(name)) return undefined;
    seen.add(name);
    names.push({ name, span: loc.span(start, i) });
    i = skipSpace(text, i);
    if (i >= text.length) return names;
    if (text.charCodeAt(i) !== COMMA) return undefined;
    i = skipSpace(text, i + 1);
  }
}

/** Read any `fields` value, nested selections and aliases included, or throw at its first fault. */
function scanFields(text: string, limits: Limits): readonly FieldSelection[] {
  const root: Level = { items: [], keys: new Set(), owner: undefined };
  const s: Scan = { text, loc: locatorFor(text), maxDepth: limits.maxSelectionDepth, levels: [root] };
  const { levels } = s;
  let i = skipSpace(text, 0);
  for (;;) {
    const depth = levels.length;
    i = readEntry(s, i);
    // An opened level starts with an entry; else a comma, closing parentheses or the end follow.
    if (levels.length > depth) continue;
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
    else if (i >= text.length && levels.length === 1) return root.items;
    else {
      i = afterEntry(s, i);
      if (i < 0) return root.items;
    }
  }
}

/**
 * Read one entry at `index` (`name`, `name(`, `alias:name(`) into the current level; return the index after it,
 * past whitespace, or past an opening parenthesis and whitespace when it opened a level.
 */
function readEntry(s: Scan, index: number): number {
  const { text } = s;
  let name: MutableSelection = readName(s, index);
  // A name is ASCII: its length in UTF-16 units is its length in bytes.
  let next = skipSpace(text, index + name.name.length);
  let alias: Ident | undefined;
  if (text.charCodeAt(next) === COLON) {
    alias = name;
    const start = skipSpace(text, next + 1);
    name = readName(s, start);
    next = skipSpace(text, start + name.name.length);
    if (text.charCodeAt(next) !== OPEN) throw aliasWithoutSelection(s, next, alias, name);
  }
  const level = s.levels[s.levels.length - 1] as Level;
  const key = alias ?? name;
  if (level.keys.has(key.name)) throw repeatedKey(level, key, alias === undefined && text.charCodeAt(next) === OPEN);
  level.keys.add(key.name);
  // The name read is the entry itself: one object per name, as cheap as a flat list of names.
  if (alias !== undefined) name.alias = alias;
  level.items.push(name);
  if (text.charCodeAt(next) !== OPEN) return next;
  if (s.levels.length > s.maxDepth) throw tooDeep(s, name);
  const children: FieldSelection[] = [];
  name.children = children;
  s.levels.push({ items: children, keys: new Set(), owner: key.name });
  return skipSpace(text, next + 1);
}

function aliasWithoutSelection(s: Scan, index: number, alias: Ident, name: Ident): ListError {
  return invalid(s, index, "expected '('", `only a nested selection takes an alias (${alias.name}:${name.name}(…))`);
}

/** An output key given twice at one level; a relation selected twice is told to take an alias. */
function repeatedKey(level: Level, key: Ident, nestedWithoutAlias: boolean): ListError {
  const where = level.owner === undefined ? 'fields' : `the fields of ${showToken(level.owner)}`;
  const hint = nestedWithoutAlias
    ? `give each selection of it its own key, as in ${showToken(`other:${key.name}(…)`)}`
    : undefined;
  return errorAtPosition(
    'invalid_parameter',
    withHint(`${showToken(key.name)} appears twice in ${where}`, hint),
    'fields',
    key.span,
  );
}

function tooDeep(s: Scan, name: Ident): ListError {
  return errorAtPosition('limit_exceeded', `fields nests deeper than ${s.maxDepth} levels`, 'fields', name.span);
}

/**
 * After an entry: a comma (return where the next entry starts), closing parentheses, the end of the value (return
 * -1 when every level is closed), or an error at what stands there instead.
 */
function afterEntry(s: Scan, index: number): number {
  const { text, levels } = s;
  let i = index;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === COMMA) return skipSpace(text, i + 1);
    if (c === CLOSE && levels.length > 1) {
      levels.pop();
      i = skipSpace(text, i + 1);
      continue;
    }
    if (i >= text.length && levels.length === 1) return -1;
    throw unexpectedAfterEntry(s, i);
  }
}

function unexpectedAfterEntry(s: Scan, i: number): ListError {
  const { text, levels } = s;
  const c = text.charCodeAt(i);
  if (c === SLASH) return invalidAt(s.loc, i, withHint('fields takes field names, not paths', pathHint(text, i)));
  if (levels.length === 1) {
    if (c === CLOSE) return invalidAt(s.loc, i, "')' closes no '('");
    return invalid(s, i, "expected ',' or the end of fields");
  }
  const owner = (levels.at(-1) as Level).owner ?? '';
  const hint = i >= text.length ? `the '(' after ${showToken(owner)} is not closed` : undefined;
  return invalid(s, i, "expected ',' or ')'", hint);
}

/** Read a name at `index`, or throw saying what stands there instead. */
function readName(s: Scan, index: number): Ident {
  const { text } = s;
  if (!isIdentStart(text.charCodeAt(index))) throw invalid(s, index, 'expected a field name', nameHint(text, index));
  let i = index + 1;
  while (isIdentPart(text.charCodeAt(i))) i++;
  return { name: text.slice(index, i), span: s.loc.span(index, i) };
}

/** Why a name is missing: an empty `()` or a comma with nothing after it. */
function nameHint(text: string, index: number): string | undefined {
  let before = index - 1;
  while (before >= 0 && isSpace(text.charCodeAt(before))) before--;
  const previous = text.charCodeAt(before);
  const c = text.charCodeAt(index);
  if (previous === OPEN && c === CLOSE) return 'parentheses name at least one field';
  if (previous === COMMA && (c === CLOSE || index >= text.length)) return "remove the trailing ','";
  return undefined;
}

/** `author/name` → write `author(name)`. */
function pathHint(text: string, slash: number): string | undefined {
  let start = slash;
  while (start > 0 && isIdentPart(text.charCodeAt(start - 1))) start--;
  let end = slash + 1;
  while (isIdentPart(text.charCodeAt(end))) end++;
  if (start === slash || end === slash + 1) return undefined;
  return `write ${showToken(`${text.slice(start, slash)}(${text.slice(slash + 1, end)})`)}`;
}

function invalidAt(loc: Locator, index: number, message: string): ListError {
  return errorAtPosition('invalid_parameter', message, 'fields', loc.position(index));
}

/** Build an `invalid_parameter` error for fields, naming what was found at `index`. */
function invalid(s: Scan, index: number, expected: string, hint?: string): ListError {
  const found = index >= s.text.length ? 'end of input' : showChar(s.text, index);
  return invalidAt(s.loc, index, withHint(`${expected}, found ${found}`, hint));
}
