import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import { Kind } from 'graphql';

/** What a connection field's selection asks for. */
export interface ConnectionSelection {
  /** Node fields selected under `nodes` or `edges { node }` (aliases resolved to field names). */
  readonly nodeFields: ReadonlySet<string>;
  readonly totalCount: boolean;
}

/**
 * Read which node fields and whether `totalCount` a connection field selects, through fragments and inline
 * fragments. `@skip`/`@include` are not evaluated: a skipped field is fetched all the same (never too little).
 */
export function connectionSelection(info: GraphQLResolveInfo): ConnectionSelection {
  const fragments = info.fragments;
  const top = subfields(info.fieldNodes, fragments);
  const nodeFields = new Set<string>();
  const nodes = [...(top.get('nodes') ?? [])];
  for (const edge of subfields(top.get('edges') ?? [], fragments).get('node') ?? []) nodes.push(edge);
  for (const name of subfields(nodes, fragments).keys()) if (!name.startsWith('__')) nodeFields.add(name);
  return { nodeFields, totalCount: top.has('totalCount') };
}

/** Group the fields selected under the given field nodes by field name. */
function subfields(
  nodes: readonly FieldNode[],
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
): Map<string, FieldNode[]> {
  const out = new Map<string, FieldNode[]>();
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        out.set(name, [...(out.get(name) ?? []), selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        if (seen.has(name)) continue;
        seen.add(name);
        visit(fragments[name]?.selectionSet);
      }
    }
  };
  for (const node of nodes) visit(node.selectionSet);
  return out;
}
