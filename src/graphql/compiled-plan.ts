import {
  type ExecutionArgs,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  isEnumType,
  Kind,
  type OperationDefinitionNode,
  specifiedScalarTypes,
  type TypeNode,
  validateSchema,
} from 'graphql';
import { setBounded } from '../bounded-map.ts';
import {
  type ArgumentSlot,
  type CompileContext,
  type Complete,
  compileConnection,
  Ineligible,
} from './compiled-shape.ts';
import { fieldCollector } from './document-walk.ts';
import { isRootConnection } from './resolved-root.ts';

/**
 * What the compiled path keeps of a kept document (compiled-execute.ts): per operation, whether it selects only
 * listql connections, and per set of `@skip`/`@include` values the fields it executes with their compiled writers.
 */

/** `@skip`/`@include` value sets remembered per operation. */
const SHAPES = 16;

/** One operation of a kept document, as the compiled path runs it. */
export interface Plan {
  readonly operation: OperationDefinitionNode;
  readonly fragments: Record<string, FragmentDefinitionNode>;
  /** The variables `@skip`/`@include` read: the shape depends on their values only. */
  readonly directiveVariables: readonly string[];
  readonly shapes: Map<string, Shape | null>;
  /**
   * Whether every variable's type is a built-in scalar or an enum, whose coercion is a pure function of the value
   * sent: then what the variables fix can be kept by their JSON (compiled-execute.ts).
   */
  readonly pureVariables: boolean;
}

/** A root field of a shape: `__typename`, or a listql connection field and its compiled writer. */
export type Root =
  | { readonly key: string; readonly typename: string }
  | {
      readonly key: string;
      readonly field: GraphQLField<unknown, unknown>;
      readonly nodes: readonly FieldNode[];
      readonly complete: Complete;
    };

/** The compiled answer of an operation for one set of `@skip`/`@include` values. */
export interface Shape {
  readonly roots: readonly Root[];
  readonly slots: readonly ArgumentSlot[];
}

/** The plan of the operation graphql-js would execute, or null when the compiled path does not cover it. */
export function planDocument({ schema, document, operationName }: ExecutionArgs): Plan | null {
  let operation: OperationDefinitionNode | undefined;
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null);
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) {
      if (operationName == null) {
        if (operation) return null;
        operation = definition;
      } else if (definition.name?.value === operationName) operation = definition;
    } else if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      if ((definition as { variableDefinitions?: readonly unknown[] }).variableDefinitions?.length) return null;
      fragments[definition.name.value] = definition;
    }
  }
  if (operation?.operation !== 'query' || operation.directives?.length) return null;
  if (!schema.getQueryType() || validateSchema(schema).length > 0) return null;
  const directiveVariables = new Set<string>();
  const sets = [operation.selectionSet, ...Object.values(fragments).map((f) => f.selectionSet)];
  for (const set of sets) if (!plainDirectives(set.selections, directiveVariables)) return null;
  const pureVariables = (operation.variableDefinitions ?? []).every((def) => pureInput(schema, def.type));
  return {
    operation,
    fragments,
    directiveVariables: [...directiveVariables],
    shapes: new Map(),
    pureVariables,
  };
}

/** Whether a variable of this type is coerced by a built-in scalar or an enum (lists and non-null of them too). */
function pureInput(schema: GraphQLSchema, type: TypeNode): boolean {
  if (type.kind !== Kind.NAMED_TYPE) return pureInput(schema, type.type);
  const named = schema.getType(type.name.value);
  return named !== undefined && ((specifiedScalarTypes as readonly unknown[]).includes(named) || isEnumType(named));
}

type Selections = OperationDefinitionNode['selectionSet']['selections'];

/** Check that only `@skip`/`@include` appear (with no fragment arguments), and collect the variables they read. */
function plainDirectives(selections: Selections, variables: Set<string>): boolean {
  for (const selection of selections) {
    for (const directive of selection.directives ?? []) {
      if (directive.name.value !== 'skip' && directive.name.value !== 'include') return false;
      for (const arg of directive.arguments ?? [])
        if (arg.value.kind === Kind.VARIABLE) variables.add(arg.value.name.value);
    }
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      if ((selection as { arguments?: readonly unknown[] }).arguments?.length) return false;
    } else if (selection.selectionSet && !plainDirectives(selection.selectionSet.selections, variables)) return false;
  }
  return true;
}

/** The coerced value of one variable (graphql-js 17 keeps them under `coerced`). */
function variableValue(variables: object, name: string): unknown {
  const v17 = variables as { sources?: unknown; coerced?: Record<string, unknown> };
  const values = typeof v17.sources === 'object' && v17.coerced ? v17.coerced : (variables as Record<string, unknown>);
  return values[name];
}

/** The shape of the plan for these variables' `@skip`/`@include` values, compiled on first use; null: ineligible. */
export function shapeOf(plan: Plan, schema: GraphQLSchema, variableValues: object): Shape | null {
  const key = plan.directiveVariables
    .map((name) => JSON.stringify(variableValue(variableValues, name) ?? null))
    .join(',');
  let shape = plan.shapes.get(key);
  if (shape === undefined) {
    shape = compileShape(plan, schema, variableValues);
    setBounded(plan.shapes, key, shape, SHAPES);
  }
  return shape;
}

function compileShape(plan: Plan, schema: GraphQLSchema, variableValues: object): Shape | null {
  const query = schema.getQueryType()!;
  const info = { schema, fragments: plan.fragments, operation: plan.operation };
  const values = variableValues as GraphQLResolveInfo['variableValues'];
  const context: CompileContext = { collect: fieldCollector({ ...info, variableValues: values }), info, slots: [] };
  const roots: Root[] = [];
  try {
    for (const [key, nodes] of context.collect(query, [plan.operation.selectionSet])) {
      const name = nodes[0]!.name.value;
      if (name === '__typename') {
        roots.push({ key, typename: query.name });
        continue;
      }
      const field = query.getFields()[name];
      if (!field || !isRootConnection(field) || nodes.some((n) => n.name.value !== name)) return null;
      roots.push({ key, field, nodes, complete: compileConnection(context, field.type, nodes) });
    }
  } catch (err) {
    // Ineligible, or anything graphql-js reports better (it executes the document, and says what is wrong).
    if (err instanceof Ineligible || err instanceof Error) return null;
    throw err;
  }
  return { roots, slots: context.slots };
}
