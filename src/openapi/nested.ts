import type { EngineDescription, RelationDescription, SchemaDescription } from '../engine/describe/endpoint.ts';
import type { JsonObject } from './schemas.ts';

/** A relation clients may select as nested objects, reached from the root through selectable relations only. */
export interface SelectablePath {
  /** Dotted path of relation names from the root (`reviews`, `author.books`): how its parameters are named. */
  readonly path: string;
  /** 1 for a relation of the root, 2 for one inside it, … */
  readonly depth: number;
  readonly relation: RelationDescription & { readonly select: NonNullable<RelationDescription['select']> };
}

/** Every selectable relation of `schema` down to `maxDepth`, depth first in declaration order. */
export function selectablePaths(schema: SchemaDescription, maxDepth: number, prefix = '', depth = 1): SelectablePath[] {
  if (depth > maxDepth) return [];
  const out: SelectablePath[] = [];
  for (const relation of schema.relations) {
    if (relation.select === undefined) continue;
    const path = `${prefix}${relation.name}`;
    out.push({ path, depth, relation: relation as SelectablePath['relation'] });
    out.push(...selectablePaths(relation.schema, maxDepth, `${path}.`, depth + 1));
  }
  return out;
}

const SP = '[\\t\\n\\r ]*';
const IDENT = '[A-Za-z_][A-Za-z0-9_]*';

/**
 * The `fields` grammar as a pattern, nested as deep as the policy lets a selection go (`depth`, 0 for names only):
 * `name`, `name(…)` or `alias:name(…)` items, comma-separated, whitespace allowed around names, commas and
 * parentheses. Each level repeats the one inside it twice, so the pattern follows the policy's real depth.
 */
export function fieldsPattern(depth: number): string {
  return `^${SP}${list(depth)}${SP}$`;
}

function list(depth: number): string {
  const entry = item(depth);
  return `${entry}(${SP},${SP}${entry})*`;
}

function item(depth: number): string {
  if (depth === 0) return IDENT;
  // An alias is written only before a name with parentheses: `best:reviews(stars)`, never `best:reviews`.
  return `(${IDENT}((${SP}:${SP}${IDENT})?${SP}\\(${SP}${list(depth - 1)}${SP}\\))?)`;
}

/** What `fields` accepts, named: the root's names, then each nested selection's. */
export function fieldsHelp(description: EngineDescription, paths: readonly SelectablePath[]): string {
  const names = (list: readonly string[]) => list.map((n) => `\`${n}\``).join(', ');
  const root =
    'Comma-separated root fields each item carries instead of all of them; the primary key is always included. ' +
    `Selectable: ${names(description.selectable)}.`;
  if (paths.length === 0) return root;
  const nested = paths.map(({ path, relation }) => {
    const inner = [...(relation.schema.selectable ?? []), ...selectableRelations(relation.schema)];
    return `\`${path}\`: ${names(inner)}`;
  });
  return (
    `${root} A relation written with parentheses selects the related objects instead of the key, with the fields ` +
    'named inside: `author(name)` gives an object (or null), `reviews(stars)` a page of its own per item, nested ' +
    `up to ${description.limits.maxSelectionDepth} levels. \`alias:name(…)\` puts a selection under another key, ` +
    `so one relation can be selected twice. Inside the parentheses: ${nested.join('; ')}.`
  );
}

function selectableRelations(schema: SchemaDescription): string[] {
  return schema.relations.filter((r) => r.select !== undefined).map((r) => `${r.name}(…)`);
}

/** How the filter and sort of a level are described (operation.ts writes them for the top level too). */
export interface LevelHelp {
  filter(schema: SchemaDescription): string;
  sort(schema: SchemaDescription): string;
}

/**
 * The list parameters of every selectable to-many path, named after it: `<path>.filter`, `.sort`, `.limit`,
 * `.offset`, `.cursor`, and `.count` where the relation allows it.
 *
 * size: one object per parameter, in the order the document lists them.
 */
export function nestedParameters(
  description: EngineDescription,
  paths: readonly SelectablePath[],
  help: LevelHelp,
): JsonObject[] {
  const { limits } = description;
  const out: JsonObject[] = [];
  for (const { path, relation } of paths) {
    if (relation.cardinality !== 'many') continue;
    const { select, schema } = relation;
    const key = path.split('.').pop()!;
    const where = path === key ? '' : ` at \`${path}\``;
    const param = (name: string, text: string, value: JsonObject) =>
      out.push({
        name: `${path}.${name}`,
        in: 'query',
        required: false,
        description: `${text} Applies when \`fields\` selects \`${key}(…)\`${where}.`,
        schema: value,
      });
    param('filter', `Filters each item's \`${path}\` list (the filter grammar). ${help.filter(schema)}`, {
      type: 'string',
      maxLength: limits.maxFilterBytes,
    });
    const fallback =
      select.defaultSort === undefined ? 'the primary key' : `${select.defaultSort}, then the primary key`;
    param('sort', `Sorts each item's \`${path}\` list. ${help.sort(schema)} Without it: ${fallback}.`, {
      type: 'string',
      ...(select.defaultSort === undefined ? {} : { default: select.defaultSort }),
    });
    param('limit', `Items of \`${path}\` per parent.`, {
      type: 'integer',
      minimum: 0,
      ...(select.maxLimit === undefined ? {} : { maximum: select.maxLimit }),
      ...(select.defaultLimit === undefined ? {} : { default: select.defaultLimit }),
    });
    param('offset', `Items of \`${path}\` to skip per parent. Must be omitted when \`${path}.cursor\` is sent.`, {
      type: 'integer',
      minimum: 0,
      maximum: limits.maxOffset,
    });
    param(
      'cursor',
      `A \`nextCursor\` or \`prevCursor\` of one parent's \`${path}\` page, sent unchanged with the same ` +
        `\`${path}.sort\`: it continues that parent's list (narrow the top level to that parent); the lists of ` +
        'other parents start from their beginning.',
      { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: limits.maxCursorBytes },
    );
    if (select.count)
      param('count', `Also return the exact number of each parent's \`${path}\` items (page.count).`, {
        type: 'boolean',
      });
  }
  return out;
}
