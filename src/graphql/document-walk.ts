import {
  type FieldNode,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  GraphQLSkipDirective,
  getDirectiveValues,
  getNamedType,
  isAbstractType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from 'graphql';

/** One field the operation executes: its definition, the type it is on, and the nodes merged under its key. */
export interface ExecutedField {
  readonly field: GraphQLField<unknown, unknown>;
  readonly parentType: GraphQLObjectType;
  readonly responseKey: string;
  readonly nodes: readonly FieldNode[];
}

/** What a field collection needs from the execution: the schema, the fragments and the variables' values. */
export type CollectContext = Pick<GraphQLResolveInfo, 'schema' | 'fragments' | 'variableValues'>;

/**
 * Group the fields selected on an object type by response key, as graphql-js does before it executes them: fields
 * with the same response key are one execution (aliases are not), fragments and inline fragments count where their
 * type condition matches the type (or an interface or union holding it), and `@skip`/`@include` are evaluated with
 * this execution's variables.
 */
export type FieldCollector = (
  type: GraphQLObjectType,
  sets: readonly (SelectionSetNode | undefined)[],
) => Map<string, FieldNode[]>;

/** Build the field collector of one execution. */
export function fieldCollector({ schema, fragments, variableValues }: CollectContext): FieldCollector {
  const included = (node: { readonly directives?: readonly unknown[] | undefined }): boolean => {
    if (!node.directives?.length) return true;
    const at = node as Parameters<typeof getDirectiveValues>[1];
    if (getDirectiveValues(GraphQLSkipDirective, at, variableValues)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, at, variableValues)?.if !== false;
  };
  const applies = (type: GraphQLObjectType, condition: string | undefined): boolean => {
    if (condition === undefined || condition === type.name) return true;
    const named = schema.getType(condition);
    return named !== undefined && isAbstractType(named) && schema.isSubType(named, type);
  };
  return (type, sets) => {
    const grouped = new Map<string, FieldNode[]>();
    const seen = new Set<string>();
    const visit = (set: SelectionSetNode | undefined) => {
      for (const selection of set?.selections ?? []) {
        if (!included(selection)) continue;
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value;
          const group = grouped.get(key);
          if (group) group.push(selection);
          else grouped.set(key, [selection]);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          if (applies(type, selection.typeCondition?.name.value)) visit(selection.selectionSet);
        } else {
          const name = selection.name.value;
          const fragment = fragments[name];
          if (seen.has(name) || !fragment || !applies(type, fragment.typeCondition.name.value)) continue;
          seen.add(name);
          visit(fragment.selectionSet);
        }
      }
    };
    for (const set of sets) visit(set);
    return grouped;
  };
}

/** Deeper than any document the depth rule lets through; a guard for servers that skip validation. */
const MAX_LEVELS = 64;

/**
 * List the fields for which `wanted` holds that the operation of `info` will execute, at every level, as graphql-js
 * collects them (see FieldCollector). Below an abstract type every possible type is walked (an upper bound). Throws
 * a RangeError on a document nested deeper than 64 levels.
 */
export function executedFields(
  info: GraphQLResolveInfo,
  wanted: (field: GraphQLField<unknown, unknown>) => boolean,
): ExecutedField[] {
  const { schema } = info;
  const collect = fieldCollector(info);
  const out: ExecutedField[] = [];
  const walk = (type: GraphQLObjectType, sets: readonly (SelectionSetNode | undefined)[], level: number) => {
    if (level > MAX_LEVELS) throw new RangeError(`the document nests more than ${MAX_LEVELS} levels`);
    for (const [responseKey, nodes] of collect(type, sets)) {
      const name = nodes[0]!.name.value;
      const field = name.startsWith('__') ? undefined : type.getFields()[name];
      if (!field) continue;
      if (wanted(field)) out.push({ field, parentType: type, responseKey, nodes });
      const named = getNamedType(field.type);
      const below = isObjectType(named) ? [named] : isAbstractType(named) ? schema.getPossibleTypes(named) : [];
      for (const next of below)
        walk(
          next,
          nodes.map((n) => n.selectionSet),
          level + 1,
        );
    }
  };
  const root = schema.getRootType(info.operation.operation);
  if (root) walk(root, [info.operation.selectionSet], 1);
  return out;
}
