import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getArgumentValues,
  getVariableValues,
  execute as graphqlExecute,
  type OperationDefinitionNode,
} from 'graphql';
import { mapFor, setBounded } from '../bounded-map.ts';
import { setOwn } from './compiled-leaf.ts';
import { type Plan, planDocument, type Shape, shapeOf } from './compiled-plan.ts';
import type { Run } from './compiled-shape.ts';
import { ResolvedRoot } from './resolved-root.ts';

/**
 * The compiled execution path: for a document a document cache kept, whose operation selects only listql connection
 * fields (at any depth: nodes, edges, pageInfo, totalCount, node fields, nested relations, `__typename`, through
 * aliases, fragments and `@skip`/`@include`), each root field's own resolver runs as graphql-js would run it (the
 * document budget, the admission, the engine request and its errors are all theirs), and the answer is written
 * from what they resolved to by a writer compiled once per document and `@skip`/`@include` values. Anything else
 * (another field, another directive, a variable graphql-js refuses, a root field that failed, a value the writer
 * does not expect) is executed by graphql-js, from the already resolved root fields when they ran: the answer is
 * graphql-js's in every case, only faster where nothing unusual happens.
 */

/** graphql-js's execute, as servers take it (graphql-http's `execute`). */
export type Execute = typeof graphqlExecute;

/** Operations remembered per document. */
const PER_DOCUMENT = 8;

/** Answers the compiled path wrote (tests tell the two paths apart by them). */
const compiledAnswers = new WeakSet<object>();

/** Tell whether an answer was written by the compiled path (graphql-js's answers are not). */
export function answeredByCompiledPath(result: object): boolean {
  return compiledAnswers.has(result);
}

/**
 * Build an `execute` that takes the compiled path for the documents `kept` holds (a document cache's), and is
 * graphql-js's execute for everything else.
 */
export function compiledExecute(kept: (document: DocumentNode) => boolean): Execute {
  const plans = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, Plan | null>>>();
  const planOf = (args: ExecutionArgs): Plan | null => {
    let bySchema = plans.get(args.schema);
    if (!bySchema) {
      bySchema = new WeakMap();
      plans.set(args.schema, bySchema);
    }
    const byName = mapFor(bySchema, args.document);
    const name = args.operationName == null ? '' : `:${args.operationName}`;
    let plan = byName.get(name);
    if (plan === undefined) {
      plan = planDocument(args);
      setBounded(byName, name, plan, PER_DOCUMENT);
    }
    return plan;
  };
  return ((args: ExecutionArgs) => {
    if (!kept(args.document) || !plainArgs(args)) return graphqlExecute(args);
    const plan = planOf(args);
    return plan ? runPlan(plan, args) : graphqlExecute(args);
  }) as Execute;
}

/** Execution options the compiled path honours: none beyond the schema, document, values and operation name. */
function plainArgs(args: ExecutionArgs): boolean {
  const more = args as unknown as Record<string, unknown>;
  return (
    args.fieldResolver == null &&
    args.typeResolver == null &&
    more.abortSignal == null &&
    more.hooks == null &&
    more.perEventExecutor == null
  );
}

/** Coerce the variables as graphql-js would; undefined when it refuses them (it then reports why). */
function coerceVariables(args: ExecutionArgs, operation: OperationDefinitionNode): object | undefined {
  const out = getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {}, {
    maxErrors: 50,
  }) as { errors?: unknown; coerced?: object; variableValues?: object };
  if (out.errors) return undefined;
  // graphql-js 17 gives { variableValues: { sources, coerced } }, 16 gives { coerced }.
  return out.variableValues ?? out.coerced;
}

async function runPlan(plan: Plan, args: ExecutionArgs): Promise<ExecutionResult> {
  const variableValues = coerceVariables(args, plan.operation);
  if (!variableValues) return graphqlExecute(args);
  const shape = shapeOf(plan, args.schema, variableValues);
  if (!shape) return graphqlExecute(args);
  let rootArgs: Record<string, unknown>[];
  let slotArgs: Record<string, unknown>[];
  try {
    const values = variableValues as GraphQLResolveInfo['variableValues'];
    rootArgs = shape.roots.map((root) =>
      'field' in root ? getArgumentValues(root.field, root.nodes[0]!, values) : {},
    );
    slotArgs = shape.slots.map((slot) => getArgumentValues(slot.field, slot.node, values));
  } catch {
    return graphqlExecute(args);
  }
  const parentType = args.schema.getQueryType()!;
  const base = {
    schema: args.schema,
    fragments: plan.fragments,
    rootValue: args.rootValue,
    operation: plan.operation,
    variableValues,
    getAbortSignal: () => undefined,
    parentType,
  };
  // As graphql-js runs a query's root fields: every resolver is called, in order, before any is awaited.
  const pending = shape.roots.map((root, i) => {
    if (!('field' in root)) return root.typename;
    const path = { prev: undefined, key: root.key, typename: parentType.name };
    const info = { ...base, fieldName: root.field.name, fieldNodes: root.nodes, returnType: root.field.type, path };
    try {
      return root.field.resolve!(
        args.rootValue,
        rootArgs[i]!,
        args.contextValue,
        info as unknown as GraphQLResolveInfo,
      );
    } catch (err) {
      return Promise.reject(err);
    }
  });
  const settled = await Promise.allSettled(pending);
  const written = write(shape, settled, { context: args.contextValue, args: slotArgs });
  if (written) return written;
  const byKey = new Map(shape.roots.map((root, i) => [root.key, settled[i]!] as const));
  return graphqlExecute({ ...args, rootValue: new ResolvedRoot(byKey) });
}

/** Write the answer from the settled root fields, or undefined when graphql-js must complete it. */
function write(shape: Shape, settled: PromiseSettledResult<unknown>[], run: Run): ExecutionResult | undefined {
  const data: Record<string, unknown> = {};
  try {
    for (const [i, root] of shape.roots.entries()) {
      const one = settled[i]!;
      if (one.status === 'rejected') return undefined;
      setOwn(data, root.key, 'field' in root ? root.complete(one.value, run) : one.value);
    }
  } catch {
    return undefined;
  }
  const result = { data };
  compiledAnswers.add(result);
  return result;
}
