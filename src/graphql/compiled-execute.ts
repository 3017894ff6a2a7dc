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
import { jsonKey, shareVariablesKey } from './request-cache.ts';
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

/** Sets of variable values remembered per operation: a client's few variants (a cursor, a count) stay bound. */
const BINDINGS = 16;

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

/** Each plan's bindings by the JSON of their variable values; null: graphql-js executes those values. */
const bindingsOf = new WeakMap<Plan, Map<string, Binding | null>>();

/** What one set of variable values fixes of an operation: their coerced values, its shape, its fields' arguments. */
interface Binding {
  readonly variableValues: object;
  readonly shape: Shape;
  readonly rootArgs: readonly Record<string, unknown>[];
  readonly slotArgs: readonly Record<string, unknown>[];
}

/**
 * The binding of the execution's variable values, kept by their JSON when coercing them is pure (built-in scalars
 * and enums): a request that sends the same document with the same variables coerces nothing again. Undefined when
 * graphql-js refuses the variables or the compiled path does not cover the shape (graphql-js then executes).
 */
function bindingOf(plan: Plan, args: ExecutionArgs): Binding | undefined {
  const key = plan.pureVariables ? jsonKey(args.variableValues ?? {}) : undefined;
  if (key === undefined) return bind(plan, args);
  const bindings = mapFor(bindingsOf, plan);
  const kept = bindings.get(key);
  if (kept !== undefined) return kept ?? undefined;
  const binding = bind(plan, args);
  setBounded(bindings, key, binding ?? null, BINDINGS);
  return binding;
}

function bind(plan: Plan, args: ExecutionArgs): Binding | undefined {
  const variableValues = coerceVariables(args, plan.operation);
  if (!variableValues) return undefined;
  const shape = shapeOf(plan, args.schema, variableValues);
  if (!shape) return undefined;
  try {
    const values = variableValues as GraphQLResolveInfo['variableValues'];
    // Frozen: every execution that sends these variables hands the same argument objects to the resolvers.
    const rootArgs = shape.roots.map((root) =>
      Object.freeze('field' in root ? getArgumentValues(root.field, root.nodes[0]!, values) : {}),
    );
    const slotArgs = shape.slots.map((slot) => Object.freeze(getArgumentValues(slot.field, slot.node, values)));
    return { variableValues, shape, rootArgs, slotArgs };
  } catch {
    return undefined;
  }
}

/**
 * The variable values of one execution: a copy of the binding's, since an execution is known by its values object
 * (the document budget's verdict and the request caches are per execution), with the same key.
 */
function executionValues(binding: Binding): object {
  const own = Object.assign(Object.create(Object.getPrototypeOf(binding.variableValues)), binding.variableValues);
  shareVariablesKey(binding.variableValues, own);
  return own;
}

async function runPlan(plan: Plan, args: ExecutionArgs): Promise<ExecutionResult> {
  const binding = bindingOf(plan, args);
  if (!binding) return graphqlExecute(args);
  const { shape, rootArgs, slotArgs } = binding;
  const variableValues = executionValues(binding);
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
