import {
  defaultFieldResolver,
  type FieldNode,
  type GraphQLField,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  isLeafType,
  type SelectionSetNode,
} from 'graphql';
import { FAULT, type Item, type ItemLeaf, itemLeaf, leaf, leafValue, setOwn } from './compiled-leaf.ts';
import { pageInfoType } from './connection.ts';
import type { FieldCollector } from './document-walk.ts';
import { levelOf, sourceOf } from './node-source.ts';

/**
 * A compiled selection: the response of a listql connection field written straight from what its resolver returned
 * (the engine's page), field by field as the document selects it, without graphql-js resolving every field of every
 * item. It calls each field's own resolver, with the arguments and the few info fields they read (a node's value
 * field whose resolver only reads the item is read from the item, as its resolver would), and completes the value
 * as graphql-js does (non-null checks, lists, the scalar's output coercion), so the answer is the same. Only
 * the fields listql builds are compiled: anything else makes the document ineligible, and anything unexpected while
 * writing (a null where the type forbids it, a value a scalar refuses, a promise) throws FAULT, and the execution is
 * then completed by graphql-js from the same resolved root values.
 */

/** Thrown while compiling a selection the compiled path does not cover: graphql-js executes the document. */
export class Ineligible extends Error {}

/** What one execution gives the writers: the context value, and the arguments of the fields that take any. */
export interface Run {
  readonly context: unknown;
  readonly args: readonly Record<string, unknown>[];
}

/** Write one resolved value in its field's shape. */
export type Complete = (value: unknown, run: Run) => unknown;

/** A field that takes arguments: the writers read its coerced arguments from `Run.args`, by its slot. */
export interface ArgumentSlot {
  readonly field: GraphQLField<unknown, unknown>;
  readonly node: FieldNode;
}

/** What compiling needs: the field collection of the execution, and the execution's fixed parts of `info`. */
export interface CompileContext {
  readonly collect: FieldCollector;
  readonly info: Pick<GraphQLResolveInfo, 'schema' | 'fragments' | 'operation'>;
  /** Filled while compiling: the fields whose arguments each execution coerces. */
  readonly slots: ArgumentSlot[];
}

/** Where a listql object type stands: what its fields are, and so which of them the compiled path writes. */
type Role = 'connection' | 'edge' | 'pageInfo' | 'node';

const NO_ARGS: Record<string, unknown> = Object.freeze({});

/** Compile the writer of a root listql connection field's value (its type nullable, as the schema builds it). */
export function compileConnection(
  context: CompileContext,
  type: GraphQLOutputType,
  nodes: readonly FieldNode[],
): Complete {
  if (!(type instanceof GraphQLObjectType)) throw new Ineligible();
  return nullable(objectWriter(context, type, nodes, 'connection'));
}

/** The role of the object type a field of a `role` object returns, or undefined when it is not compiled. */
function childRole(role: Role, parent: GraphQLObjectType, field: GraphQLField<unknown, unknown>): Role | undefined {
  switch (role) {
    case 'connection':
      if (field.name === 'nodes') return 'node';
      if (field.name === 'edges') return 'edge';
      if (field.name === 'pageInfo') return 'pageInfo';
      return undefined;
    case 'edge':
      return field.name === 'node' ? 'node' : undefined;
    case 'node': {
      const source = levelOf(parent) === undefined ? undefined : sourceOf(field);
      if (source?.kind === 'one') return 'node';
      return source?.kind === 'many' ? 'connection' : undefined;
    }
    default:
      return undefined;
  }
}

/** Whether a field of a `role` object that returns a leaf is one listql builds. */
function leafField(role: Role, parent: GraphQLObjectType, field: GraphQLField<unknown, unknown>): boolean {
  switch (role) {
    case 'connection':
      return field.name === 'totalCount';
    case 'edge':
      return field.name === 'cursor';
    case 'pageInfo':
      return parent === pageInfoType;
    case 'node': {
      const kind = levelOf(parent) === undefined ? undefined : sourceOf(field)?.kind;
      return kind === 'value' || kind === 'globalId';
    }
  }
}

/**
 * Compile the writer of one object of a listql type: its selected fields, merged by response key, in order. A node's
 * value field is written straight from the item (ItemLeaf); every other field by its own writer.
 */
function objectWriter(
  context: CompileContext,
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
  role: Role,
): Complete {
  if (type.isTypeOf) throw new Ineligible();
  const keys: string[] = [];
  const leaves: (ItemLeaf | undefined)[] = [];
  const writers: (Complete | undefined)[] = [];
  for (const [key, group] of context.collect(type, setsOf(nodes))) {
    const name = group[0]!.name.value;
    const field = name === '__typename' ? undefined : type.getFields()[name];
    if (name !== '__typename' && (!field || group.some((n) => n.name.value !== name))) throw new Ineligible();
    const item = field && role === 'node' ? itemLeaf(type, field) : undefined;
    keys.push(key);
    leaves.push(item);
    writers.push(item ? undefined : field ? fieldWriter(context, type, field, key, group, role) : () => type.name);
  }
  // A response key may be `__proto__` (an alias), which graphql-js's answers hold as an own property: assigned, it
  // would set the prototype instead.
  const guarded = keys.includes('__proto__');
  return (value, run) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const item = leaves[i];
      const written = item === undefined ? writers[i]!(value, run) : leafValue(item, value as Item);
      if (guarded) setOwn(out, keys[i]!, written);
      else out[keys[i]!] = written;
    }
    return out;
  };
}

/** Compile one selected field: its resolver, called with the arguments and the info it reads, and its completion. */
function fieldWriter(
  context: CompileContext,
  parent: GraphQLObjectType,
  field: GraphQLField<unknown, unknown>,
  key: string,
  nodes: readonly FieldNode[],
  role: Role,
): Complete {
  const info = {
    ...context.info,
    fieldName: field.name,
    fieldNodes: nodes,
    returnType: field.type,
    parentType: parent,
    path: { prev: undefined, key, typename: parent.name },
  } as unknown as GraphQLResolveInfo;
  let slot = -1;
  if (field.args.length > 0) {
    slot = context.slots.length;
    context.slots.push({ field, node: nodes[0]! });
  }
  const resolve = field.resolve ?? defaultFieldResolver;
  const below = childRole(role, parent, field);
  const complete = typeWriter(field.type, (named) => {
    if (named instanceof GraphQLObjectType && below !== undefined) return objectWriter(context, named, nodes, below);
    if (isLeafType(named) && leafField(role, parent, field)) return leaf(named);
    throw new Ineligible();
  });
  if (slot < 0) return (value, run) => complete(resolve(value, NO_ARGS, run.context, info), run);
  return (value, run) => complete(resolve(value, run.args[slot], run.context, info), run);
}

/** Compile the completion of a value of `type`: non-null checks and lists around the named type's writer. */
function typeWriter(type: GraphQLOutputType, named: (type: GraphQLOutputType) => Complete): Complete {
  if (type instanceof GraphQLNonNull) {
    const inner = typeWriter(type.ofType, named);
    return (value, run) => {
      const out = inner(value, run);
      if (out === null) throw FAULT;
      return out;
    };
  }
  if (type instanceof GraphQLList) {
    const item = typeWriter(type.ofType, named);
    return nullable((value, run) => {
      if (!Array.isArray(value)) throw FAULT;
      return value.map((v) => item(v, run));
    });
  }
  return nullable(named(type));
}

/** Null for a null or undefined value; a promise or an Error is for graphql-js to handle. */
function nullable(complete: Complete): Complete {
  return (value, run) => {
    if (value === null || value === undefined) return null;
    if (value instanceof Error || typeof (value as { then?: unknown }).then === 'function') throw FAULT;
    return complete(value, run);
  };
}

function setsOf(nodes: readonly FieldNode[]): (SelectionSetNode | undefined)[] {
  return nodes.map((n) => n.selectionSet);
}
