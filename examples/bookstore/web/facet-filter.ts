/**
 * What clicking a facet bucket does to the playground's filter: it adds the test that picks the bucket's rows as one
 * more top-level `and` term (the facets' cross-filtering leaves such a term out of its own facet's counts, so the
 * other values stay listed). Picking a second value of the same facet widens that facet's test into an `in` list
 * when the field allows `in` (`year in (1969, 1974)`, `tags/any(t: t/name in ('classic', 'fantasy'))`), and
 * replaces its value otherwise. Everything is read from the endpoint's `describe()`: a bucket the policy gives no way
 * to filter on (no `eq` on the field, no `is null` for the NULL bucket) is shown but not clickable.
 */

import type { EngineDescription, FieldDescription } from '../../../src/index.ts';
import type { FilterNode, Literal } from '../../../src/syntax/ast.ts';
import { parseFilter } from '../../../src/syntax/index.ts';
import { indexOfByte } from './editing.ts';

/** One bucket of a facet, as the answer writes it. */
export interface Bucket {
  readonly value: unknown;
  readonly label?: unknown;
  readonly count: number;
}

/** The test a bucket stands for: `path eq literal` (or `path is null`), inside `relation/any(v: …)` for a to-many facet. */
interface Pick {
  readonly path: string;
  /** The literal as written in a filter; undefined for the NULL bucket (`path is null`). */
  readonly literal?: string;
  /** Whether the field takes `in`, so a second value of the facet widens the test instead of replacing it. */
  readonly widens: boolean;
  /** To-many facets: the relation the test runs through, with `any`, and the variable's name. */
  readonly through?: { readonly relation: string; readonly variable: string };
}

/**
 * The filter after picking `bucket` of the facet named `facet`: `filter` with the bucket's test added (or merged into
 * the facet's test already there); `filter` itself when it already picks the bucket, undefined when the bucket
 * cannot be written as a test or the filter does not parse.
 */
export function filterWithBucket(
  filter: string,
  description: EngineDescription,
  facet: string,
  bucket: Bucket,
): string | undefined {
  const pick = pickOf(description, facet, bucket);
  if (!pick) return undefined;
  const clause = write(pick);
  if (filter.trim() === '') return clause;
  let root: FilterNode;
  try {
    root = parseFilter(filter, description.limits);
  } catch {
    return undefined;
  }
  for (const conjunct of conjuncts(root)) {
    const merged = mergeInto(filter, conjunct, pick);
    if (merged !== undefined) return merged;
  }
  return root.kind === 'or' ? `(${filter.trim()}) and ${clause}` : `${filter.trim()} and ${clause}`;
}

/** Whether a bucket of the facet can be picked from the page (its test can be written under the policy). */
export function canPick(description: EngineDescription, facet: string, bucket: Bucket): boolean {
  return pickOf(description, facet, bucket) !== undefined;
}

function pickOf(description: EngineDescription, name: string, bucket: Bucket): Pick | undefined {
  const facet = description.facets.find((f) => f.name === name);
  if (!facet) return undefined;
  if (facet.of === 'field') {
    const field = description.fields.find((f) => f.name === name);
    return field && fieldPick(name, field, bucket.value, facet.value.format);
  }
  const relation = description.relations.find((r) => r.name === name);
  if (!relation) return undefined;
  if (bucket.value === null)
    return relation.cardinality === 'one' && relation.nullCheck ? { path: name, widens: false } : undefined;
  // The related row's key when the nested policy filters on it, its label otherwise.
  const fields = relation.schema.fields;
  const keyName = relation.schema.key?.length === 1 ? relation.schema.key[0] : undefined;
  const key = fields.find((f) => f.name === keyName && f.operators.includes('eq'));
  const label = facet.label && fields.find((f) => f.name === facet.label!.name && f.operators.includes('eq'));
  const [field, value, format] = key
    ? [key, bucket.value, facet.value.format]
    : label && bucket.label !== null
      ? [label, bucket.label, facet.label!.format]
      : [];
  if (!field) return undefined;
  if (relation.cardinality === 'one') return fieldPick(`${name}/${field.name}`, field, value, format);
  const variable = /[a-z]/i.exec(name)?.[0]?.toLowerCase() ?? 'x';
  const inner = fieldPick(`${variable}/${field.name}`, field, value, format);
  return inner && { ...inner, through: { relation: name, variable } };
}

function fieldPick(path: string, field: FieldDescription, value: unknown, format?: string): Pick | undefined {
  if (value === null) return field.operators.includes('null') ? { path, widens: false } : undefined;
  if (!field.operators.includes('eq')) return undefined;
  return { path, literal: literalOf(value, format), widens: field.operators.includes('in') };
}

/** A value as a filter literal: numbers and booleans bare (64-bit integers and decimals too), text quoted. */
function literalOf(value: unknown, format?: string): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = String(value);
  if (format === 'int64' || format === 'uint64' || format === 'decimal') return text;
  return `'${text.replaceAll("'", "''")}'`;
}

function write(pick: Pick): string {
  const test = pick.literal === undefined ? `${pick.path} is null` : `${pick.path} eq ${pick.literal}`;
  return pick.through ? `${pick.through.relation}/any(${pick.through.variable}: ${test})` : test;
}

/** The terms of the filter's top-level `and` chain. */
function conjuncts(node: FilterNode): FilterNode[] {
  return node.kind === 'and' ? [...conjuncts(node.left), ...conjuncts(node.right)] : [node];
}

const pathOf = (node: { path: { segments: readonly { name: string }[] } }) =>
  node.path.segments.map((s) => s.name).join('/');

/** The filter with `pick` merged into the term `node`, when that term is the facet's own test; undefined otherwise. */
function mergeInto(text: string, node: FilterNode, pick: Pick): string | undefined {
  const slice = (span: { offset: number; end: number }) =>
    text.slice(indexOfByte(text, span.offset), indexOfByte(text, span.end));
  const replace = (span: { offset: number; end: number }, by: string) =>
    text.slice(0, indexOfByte(text, span.offset)) + by + text.slice(indexOfByte(text, span.end));
  if (pick.through) {
    if (node.kind !== 'quantifier' || node.quantifier !== 'any' || pathOf(node) !== pick.through.relation)
      return undefined;
    // Inside the quantifier, under the variable it names.
    const { through: _, ...inner } = pick;
    const path = `${node.variable.name}/${pick.path.slice(pick.path.indexOf('/') + 1)}`;
    return mergeInto(text, node.predicate, { ...inner, path });
  }
  if (pick.literal === undefined)
    return node.kind === 'nullCheck' && !node.negated && pathOf(node) === pick.path ? text : undefined;
  const literals = (values: readonly Literal[]) => values.map((v) => slice(v.span));
  let values: string[];
  if (node.kind === 'comparison' && node.operator === 'eq' && pathOf(node) === pick.path)
    values = literals([node.value]);
  else if (node.kind === 'membership' && !node.negated && pathOf(node) === pick.path) values = literals(node.values);
  else return undefined;
  if (values.includes(pick.literal)) return text;
  if (!pick.widens) return replace(node.span, `${pick.path} eq ${pick.literal}`);
  return replace(node.span, `${pick.path} in (${[...values, pick.literal].join(', ')})`);
}
