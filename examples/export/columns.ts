/**
 * The CSV columns of an export, known before any row (a zero-row export still gets its header). Without `--fields`:
 * every key an item carries. With it: the primary key, then the names in the order written, and a related object
 * flattened into columns of its own, `author.id` and `author.name` for `author(name)`, down to its own related
 * objects (`author.profile.bio`). A nested list (`reviews(stars)`) is refused: it gives each book any number of
 * rows, and a CSV line has one cell per column.
 */
import type { EntityMetadata } from '@mikro-orm/core';
import { parseHTTP, type SchemaDescription } from '../../src/index.ts'; // in an application: from 'listql'
import { UsageError } from './args.ts';

type Selection = NonNullable<ReturnType<typeof parseHTTP>['fields']>[number];

/** The columns of `fields` (undefined: every key) over an entity and the endpoint's description of it. */
export function csvColumns(entity: EntityMetadata, described: SchemaDescription, fields: string | undefined): string[] {
  if (fields === undefined) return itemKeys(entity);
  // Parsed as listql parses it (a request already accepted by the engine, so it parses here too).
  const selections = parseHTTP({ fields }).fields ?? [];
  return level(entity, described, selections, '');
}

function level(
  entity: EntityMetadata,
  described: SchemaDescription,
  selections: readonly Selection[],
  prefix: string,
): string[] {
  const keys = entity.primaryKeys.map((name) => keyOf(entity, name));
  const columns = keys.map((key) => prefix + key);
  for (const selection of selections) {
    if (selection.children === undefined) {
      if (!keys.includes(selection.name)) columns.push(prefix + selection.name);
      continue;
    }
    const key = selection.alias?.name ?? selection.name;
    const relation = described.relations.find((r) => r.name === selection.name);
    if (relation === undefined) throw new UsageError(`--csv cannot write '${prefix}${key}(…)'`);
    if (relation.cardinality === 'many')
      throw new UsageError(
        `--csv cannot write '${prefix}${key}(…)': it is a list, and a CSV line has one cell per column. ` +
          'Select to-one relations only (author(name) gives author.id and author.name), or write NDJSON (leave out --csv)',
      );
    const property = entity.props.find(
      (p) => (p.serializedName ?? p.name) === selection.name || p.name === selection.name,
    );
    const target = property?.targetMeta;
    if (!target) throw new UsageError(`--csv cannot write '${prefix}${key}(…)'`);
    columns.push(...level(target, relation.schema, selection.children, `${prefix}${key}.`));
  }
  return columns;
}

function keyOf(entity: EntityMetadata, name: string): string {
  const prop = entity.properties[name];
  return prop?.serializedName ?? name;
}

/**
 * The keys of an item without `fields`, in order: what MikroORM serializes of the entity, i.e. its visible scalars
 * and the keys of its to-one relations (collections are not loaded, so they are not written).
 */
function itemKeys(entity: EntityMetadata): string[] {
  return entity.props
    .filter((p) => !p.hidden && (p.kind === 'scalar' || p.kind === 'm:1' || (p.kind === '1:1' && p.owner)))
    .map((p) => p.serializedName ?? p.name);
}
