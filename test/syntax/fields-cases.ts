/**
 * `fields` values: the hand-picked ones of fields.test.ts and generators of nested, aliased, spaced selections, their
 * mutations and token soup, shared by the grammar agreement test (fields-grammar.test.ts) and the surface fuzz
 * (test/properties/fuzz-surface.test.ts).
 */
import fc from 'fast-check';
import type { Limits } from '../../src/limits.ts';
import type { FieldSelection } from '../../src/syntax/ast.ts';

/** Print a selection back compactly: `best:reviews(stars,body)`. */
export function printFields(items: readonly FieldSelection[]): string {
  return items
    .map((f) => `${f.alias ? `${f.alias.name}:` : ''}${f.name}${f.children ? `(${printFields(f.children)})` : ''}`)
    .join(',');
}

export const accepted: [input: string, printed: string][] = [
  ['id', 'id'],
  ['id,title,price', 'id,title,price'],
  [' id , title ', 'id,title'],
  ['id,\ttitle\n', 'id,title'],
  ['author(name)', 'author(name)'],
  ['id, author(name), reviews(stars, body)', 'id,author(name),reviews(stars,body)'],
  ['best:reviews(stars),worst:reviews(stars)', 'best:reviews(stars),worst:reviews(stars)'],
  ['best : reviews ( stars )', 'best:reviews(stars)'],
  ['reviews(author(books(title)))', 'reviews(author(books(title)))'],
  ['reviews(stars),best:reviews(body)', 'reviews(stars),best:reviews(body)'],
  ['a(b(c),d(e)),f', 'a(b(c),d(e)),f'],
  // Names are not reserved in fields, nor is a key of one level reserved at another.
  ['desc,in,and(or)', 'desc,in,and(or)'],
  ['a(a(a))', 'a(a(a))'],
  ['x(id),y(id)', 'x(id),y(id)'],
  ['_x9,X_', '_x9,X_'],
];

export interface Refusal {
  readonly input: string;
  readonly offset: number;
  readonly code?: string;
  readonly message?: RegExp;
  readonly limits?: Partial<Limits>;
}
export const refused: Refusal[] = [
  // names
  { input: '', offset: 0, message: /expected a field name, found end of input/ },
  { input: ' ', offset: 1 },
  { input: '-title', offset: 0 },
  { input: '1a', offset: 0 },
  { input: 'id, \u00e9', offset: 4, message: /found 'é'/ },
  { input: '\u00e9\u00e9,a-b', offset: 0 },
  { input: 'id,,title', offset: 3 },
  // trailing commas and empty parentheses
  { input: 'id,', offset: 3, message: /remove the trailing ','/ },
  { input: 'id, ', offset: 4, message: /remove the trailing ','/ },
  { input: 'a(b,)', offset: 4, message: /found '\)': remove the trailing ','/ },
  { input: 'a()', offset: 2, message: /parentheses name at least one field/ },
  { input: 'a( )', offset: 3, message: /parentheses name at least one field/ },
  { input: 'a(,b)', offset: 2 },
  // duplicates, at the repeated key (alias, else name)
  { input: 'title,id,title', offset: 9, message: /^'title' appears twice in fields$/ },
  { input: 'reviews(stars),reviews(body)', offset: 15, message: /other:reviews\(…\)/ },
  { input: 'best:reviews(a),best:reviews(b)', offset: 16 },
  { input: 'reviews(a),reviews:reviews(b)', offset: 11 },
  { input: 'author,author(name)', offset: 7 },
  { input: 'a(b,c,b)', offset: 6, message: /'b' appears twice in the fields of 'a'/ },
  { input: 'x:a(b,y:c(d),y:e(f))', offset: 13, message: /in the fields of 'x'/ },
  // aliases without parentheses
  { input: 'x:title', offset: 7, message: /expected '\(', found end of input: only a nested selection takes an alias/ },
  { input: 'x:title,y', offset: 7 },
  { input: 'x : title ', offset: 10 },
  { input: 'a(x:b)', offset: 5 },
  { input: 'x:', offset: 2 },
  { input: 'x:(a)', offset: 2 },
  { input: 'x::a(b)', offset: 2 },
  { input: ':a', offset: 0 },
  { input: 'x:y:a(b)', offset: 3 },
  // paths
  { input: 'group/name', offset: 5, message: /not paths: write 'group\(name\)'/ },
  { input: 'a(b/c)', offset: 3 },
  { input: 'a/', offset: 1 },
  // unbalanced parentheses and what may follow an entry
  { input: 'a(b', offset: 3, message: /expected ',' or '\)', found end of input: the '\(' after 'a' is not closed/ },
  { input: 'a(b(c)', offset: 6 },
  { input: 'a)', offset: 1, message: /^'\)' closes no '\('$/ },
  { input: 'a(b))', offset: 4 },
  { input: ')', offset: 0 },
  { input: '(a)', offset: 0 },
  { input: 'a(b)c', offset: 4 },
  { input: 'a(b)(c)', offset: 4 },
  { input: 'a b', offset: 2, message: /expected ',' or the end of fields, found 'b'/ },
  { input: 'a(b c)', offset: 4 },
  { input: 'a(b):c', offset: 4 },
  { input: 'a;b', offset: 1 },
  // depth: the name whose parentheses open the level too many
  { input: 'a(b(c(d(e))))', offset: 6, code: 'limit_exceeded', message: /deeper than 3 levels/ },
  { input: 'x, best:a(b(c(d(e))))', offset: 14, code: 'limit_exceeded' },
  { input: 'a(b)', offset: 0, code: 'limit_exceeded', limits: { maxSelectionDepth: 0 } },
  { input: 'a, b(c(d))', offset: 5, code: 'limit_exceeded', limits: { maxSelectionDepth: 1 } },
];

const NAMES = ['a', 'b', 'id', 'title', 'reviews', 'desc', 'in', '_x', 'A9'];
const nameArb = fc.constantFrom(...NAMES);
const spaceArb = fc.constantFrom('', '', '', ' ', '  ', '\t', '\n', '\r\n');

/** A valid `fields` entry up to `depth` levels of parentheses, with random aliases and whitespace. */
function entryArb(depth: number): fc.Arbitrary<string> {
  if (depth === 0) return nameArb;
  const nested = fc
    .tuple(fc.option(nameArb, { nil: undefined }), nameArb, listArb(depth - 1), spaceArb, spaceArb)
    .map(([alias, name, list, s1, s2]) => `${alias === undefined ? '' : `${alias}${s1}:${s2}`}${name}${s1}${list}`);
  return fc.oneof({ weight: 2, arbitrary: nameArb }, { weight: 1, arbitrary: nested });
}

function listArb(depth: number): fc.Arbitrary<string> {
  return fc
    .tuple(fc.array(fc.tuple(spaceArb, entryArb(depth), spaceArb), { minLength: 1, maxLength: 3 }), spaceArb)
    .map(([entries, s]) => `(${s}${entries.map(([a, e, b]) => `${a}${e}${b}`).join(',')})`);
}

/** A whole valid value, nested up to 4 levels: duplicates happen (the scanner's refusal), most are unique. */
export const validArb: fc.Arbitrary<string> = fc
  .tuple(fc.array(fc.tuple(spaceArb, entryArb(4), spaceArb), { minLength: 1, maxLength: 4 }))
  .map(([entries]) => entries.map(([a, e, b]) => `${a}${e}${b}`).join(','));

const TOKENS = ['a', 'b', 'x', 'id', '(', ')', ',', ':', ' ', '\n', '/', '-', '.', 'é', '9', '', '((', '))', ',,'];

/** One to three edits of a valid value: delete, insert or replace a piece. */
export const mutatedArb: fc.Arbitrary<string> = fc
  .tuple(validArb, fc.array(fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom(...TOKENS)), { minLength: 1, maxLength: 3 }))
  .map(([text, edits]) =>
    edits.reduce((t, [at, cut, token]) => {
      const i = at % (t.length + 1);
      return t.slice(0, i) + token + t.slice(Math.min(t.length, i + cut));
    }, text),
  );

export const soupArb: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...TOKENS), { maxLength: 14 })
  .map((parts) => parts.join(''));
