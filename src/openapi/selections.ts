import type { SchemaDescription } from '../engine/describe/endpoint.ts';
import { itemPropertySchema, type JsonObject, nestedPageSchema, ref } from './schemas.ts';

/** Adds a named schema to `components.schemas`; throws a TypeError when the name is taken. */
export type ClaimSchema = (name: string, schema: JsonObject) => void;

/**
 * Add to an item schema's `properties` what a nested selection puts there, for each selectable relation of `level`
 * (down to `depth` levels): a to-one relation's object (`<Base><Relation>Item`, or null), a to-many relation's page
 * (`<Base><Relation>Page` of `<Base><Relation>Item`). A to-one relation whose key items carry under the same name
 * keeps that key as the other choice: the same item key holds the key without `fields=author(…)`, the object with it.
 */
export function addSelections(
  properties: JsonObject,
  level: SchemaDescription,
  base: string,
  depth: number,
  claim: ClaimSchema,
): void {
  if (depth <= 0) return;
  for (const relation of level.relations) {
    const select = relation.select;
    if (select === undefined) continue;
    const name = `${base}${pascal(relation.name)}`;
    const many = relation.cardinality === 'many';
    if (many) claim(`${name}Page`, nestedPageSchema(ref(`${name}Item`), relation.name, select.count));
    nestedItemSchema(relation.schema, name, depth - 1, claim);
    if (many) {
      properties[relation.name] = {
        description: `Present when \`fields\` selects \`${relation.name}(…)\`: one page of this item's ${relation.name}.`,
        allOf: [ref(`${name}Page`)],
      };
      continue;
    }
    const choices: JsonObject[] = [ref(`${name}Item`), { type: 'null' }];
    const key = properties[relation.name];
    const sameKey = relation.itemKey === relation.name && key !== undefined;
    const description = sameKey
      ? `The primary key of the related row; with \`fields=${relation.name}(…)\`, the related object, or null when there is none.`
      : `Present when \`fields\` selects \`${relation.name}(…)\`: the related object, or null when there is none.`;
    // The key keeps its own description: it says which choice it is, even where its shape is open (composite keys).
    if (sameKey) choices.unshift(key as JsonObject);
    properties[relation.name] = { description, anyOf: choices };
  }
}

/**
 * Claim `<name>Item`, the schema of one nested level's items: the target's key and selectable properties, then its
 * own selections (claimed after it, so the components list each level before the levels inside it).
 */
function nestedItemSchema(level: SchemaDescription, name: string, depth: number, claim: ClaimSchema): void {
  const properties: JsonObject = {};
  claim(`${name}Item`, {
    type: 'object',
    description: 'A related object as a nested selection gives it: its primary key, then the fields picked.',
    properties,
  });
  // Nested items are always projected: the key and what `fields` may pick there, nothing else the entity serializes.
  const pickable = new Set(level.selectable ?? []);
  for (const prop of level.item?.properties ?? [])
    if (pickable.has(prop.name)) properties[prop.name] = itemPropertySchema(prop);
  addSelections(properties, level, name, depth, claim);
}

/** `reviews` → `Reviews`, `book_tags` → `BookTags`: a relation's name as a part of a schema name. */
function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}
