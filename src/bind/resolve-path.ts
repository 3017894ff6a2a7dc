/**
 * Paths of a filter or sort against a bound schema: where a path starts (the root, or a quantifier variable), its
 * to-one hops, and the field it ends on, with the errors (and suggestions) a client sees for a wrong segment.
 */
import { type ErrorCode, errorAtPosition, type ListError } from '../errors.ts';
import type { Ident, Path, Span } from '../syntax/ast.ts';
import { suggestion } from './suggest.ts';
import type { BoundRelation, BoundSchema, FieldRef } from './types.ts';

export type Parameter = 'filter' | 'sort';
/** Which relations a path may name at a point: to-one (a sort path), to-many (a quantifier's own), or either. */
export type Reach = 'one' | 'many' | 'either';
/** Active quantifier variables and the schema each ranges over. */
export type Scope = ReadonlyMap<string, BoundSchema>;

export const NO_VARIABLES: Scope = new Map();

/** Build a ListError located at a span's start (the span's `end` is not part of the public position). */
export function errorAt(code: ErrorCode, message: string, parameter: Parameter, span: Span): ListError {
  return errorAtPosition(code, message, parameter, span);
}

/** Quote a client-written name, cut short so that messages never echo large input. */
export function shown(name: string): string {
  return `'${name.length > 64 ? `${name.slice(0, 64)}…` : name}'`;
}

/** Where a path starts: the root schema, or the schema of the quantifier variable it begins with. */
export function pathStart(bound: BoundSchema, path: Path, scope: Scope, parameter: Parameter) {
  if (scope.size === 0) return { schema: bound, variable: undefined, rest: path.segments };
  const [first, ...rest] = path.segments;
  const schema = first && scope.get(first.name);
  if (!first || !schema)
    throw errorAt(
      'invalid_relationship',
      `${shown(first?.name ?? '')} is not an active variable: paths inside any/all start with a variable`,
      parameter,
      first?.span ?? path.span,
    );
  if (rest.length === 0)
    throw errorAt(
      'invalid_relationship',
      `variable ${shown(first.name)} must be followed by a field`,
      parameter,
      path.span,
    );
  return { schema, variable: first.name, rest };
}

/** Walk relation segments that must all be to-one, collecting the hops. */
export function toOneHops(schema: BoundSchema, segments: readonly Ident[], parameter: Parameter) {
  const hops: BoundRelation[] = [];
  let current = schema;
  // A filter path may also name a to-many relation here (the error then says to use any/all); a sort path may not.
  const reach: Reach = parameter === 'sort' ? 'one' : 'either';
  for (const segment of segments) {
    const relation = relationAt(current, segment, parameter, reach);
    if (relation.cardinality === 'many') {
      const message =
        parameter === 'sort'
          ? `cannot sort through to-many relation ${shown(segment.name)}`
          : `${shown(segment.name)} is a to-many relation: use ${segment.name}/any(…) or ${segment.name}/all(…)`;
      throw errorAt('invalid_relationship', message, parameter, segment.span);
    }
    hops.push(relation);
    current = relation.target;
  }
  return { hops, schema: current };
}

export function relationAt(schema: BoundSchema, segment: Ident, parameter: Parameter, reach: Reach): BoundRelation {
  const relation = schema.relations.get(segment.name);
  if (relation) return relation;
  if (schema.fields.has(segment.name))
    throw errorAt('invalid_relationship', `${shown(segment.name)} is a field, not a relation`, parameter, segment.span);
  // An undisclosed relation is `invalid_relationship`, worded exactly like one that does not exist (docs/policy.md);
  // the suggestion comes from the exposed relations the path could take here, so it tells nothing about the rest.
  const usable = [...schema.relations.values()]
    .filter((r) => reach === 'either' || r.cardinality === reach)
    .map((r) => r.publicName);
  const hint = suggestion(segment.name, usable);
  throw errorAt('invalid_relationship', `unknown relationship ${shown(segment.name)}${hint}`, parameter, segment.span);
}

/** Resolve a path that ends on a field: its to-one hops from the root or a variable, and the field. */
export function fieldPath(bound: BoundSchema, path: Path, scope: Scope, parameter: Parameter): FieldRef {
  const start = pathStart(bound, path, scope, parameter);
  const last = start.rest[start.rest.length - 1] as Ident;
  const { hops, schema } = toOneHops(start.schema, start.rest.slice(0, -1), parameter);
  const field = schema.fields.get(last.name);
  if (!field) {
    if (schema.relations.has(last.name))
      throw errorAt(
        'invalid_relationship',
        `path ends on relation ${shown(last.name)}: name one of its fields`,
        parameter,
        last.span,
      );
    // Hidden and non-existent names look the same: only exposed fields this parameter can use are suggested.
    const usable = [...schema.fields.values()]
      .filter((f) => (parameter === 'sort' ? f.sortable : f.filterable))
      .map((f) => f.publicName);
    throw errorAt(
      'unknown_field',
      `unknown field ${shown(last.name)}${suggestion(last.name, usable)}`,
      parameter,
      last.span,
    );
  }
  const ref: FieldRef = { relations: hops, field, span: path.span };
  return start.variable === undefined ? ref : { ...ref, variable: start.variable };
}
