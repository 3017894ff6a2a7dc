/**
 * The names of the filter and sort text: ASCII identifiers that are not reserved words (docs/language.md,
 * Keywords). The types only let a policy's own names through; these checks refuse, before anything is sent, what
 * a caller without the types (JavaScript, a name built at run time) could still pass.
 */

/** Reserved words of the filter and sort text: never a name there (`fields` names may be any identifier). */
const KEYWORDS = new Set(
  'and or not eq ne gt gte lt lte contains startswith endswith ieq ine icontains istartswith iendswith in is null any all true false asc desc'.split(
    ' ',
  ),
);

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Tell whether `name` is one identifier of the grammar (reserved words included). */
export function isIdentifier(name: unknown): name is string {
  return typeof name === 'string' && IDENT.test(name);
}

/** Check one name of `fields`, throwing TypeError for anything but an identifier. */
export function fieldName(name: unknown): string {
  if (!isIdentifier(name)) throw new TypeError(`fields: ${JSON.stringify(name)} is not a name`);
  return name;
}

/** Check a variable of a quantifier: an identifier that is not a reserved word. */
export function variableName(name: unknown): string {
  if (!isIdentifier(name) || KEYWORDS.has(name))
    throw new TypeError(`${JSON.stringify(name)} cannot name a variable: write letters, digits and _`);
  return name;
}

/** Check a `/`-separated path of the filter or sort text: each segment a name, none a reserved word. */
export function pathText(path: unknown): string {
  const ok = typeof path === 'string' && path.split('/').every((s) => IDENT.test(s) && !KEYWORDS.has(s));
  if (!ok) throw new TypeError(`${JSON.stringify(path)} is not a path: names separated by '/'`);
  return path;
}
