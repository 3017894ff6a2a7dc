import { GraphQLError, type GraphQLField, type GraphQLResolveInfo, getArgumentValues } from 'graphql';
import type { Admission } from '../engine/admission.ts';
import { DocumentAdmission } from '../engine/admission-document.ts';
import { admissionOf, weightOf } from '../engine/admission-weight.ts';
import type { QueryInput } from '../engine/request.ts';
import { type RequestWork, requestWorkOf } from '../engine/request-work.ts';
import { isListError } from '../errors.ts';
import { DEFAULT_LIMITS } from '../limits.ts';
import { executionSignals } from './abort.ts';
import { type ExecutedField, executedFields } from './document-walk.ts';
import { documentLimitError } from './limit-error.ts';
import { acrossExecutions } from './request-cache.ts';

/**
 * Bounds on the work of one GraphQL document, all its listql fields together (docs/graphql.md, Cost and limits).
 * Every bound is a positive integer.
 */
export interface GraphQLLimits {
  /**
   * Root listql fields one document executes (each list field of `Query`, and `node`): aliases and fragments count,
   * nested relation fields are part of their root field's request (default 20).
   */
  readonly maxFields?: number | undefined;
  /**
   * Statements: one data query per field with `first` above 0, one more per selected `totalCount`, and per nested
   * relation selected one more (and one more with its `totalCount`), and one per selected facet (default 10).
   */
  readonly maxStatements?: number | undefined;
  /**
   * Rows: the page sizes (`first`, or the engine's default limit) of every field together, with every nested level's
   * rows for all its parents (default 1000).
   */
  readonly maxRows?: number | undefined;
  /**
   * Correlated sub-queries of every field's filter together, weighted as each engine's cost budget weighs them
   * (default: the largest `maxSubqueries` of the schema's engines, so a field REST accepts alone is accepted here).
   */
  readonly maxSubqueries?: number | undefined;
}

/** The defaults of GraphQLLimits other than maxSubqueries. */
export const DEFAULT_GRAPHQL_LIMITS = Object.freeze({ maxFields: 20, maxStatements: 10, maxRows: 1000 });

type Bounds = { readonly [K in keyof GraphQLLimits]-?: number };

/** The field extension under which a listql connection field prices itself. */
const PRICE_EXTENSION = 'listqlPrice';

/** Price a listql field's request from its arguments and its field info, as its resolver would send it. */
type FieldPrice = (args: Record<string, unknown>, info: GraphQLResolveInfo) => RequestWork;

/** The per-schema guard every listql resolver asks before anything else. */
export interface DocumentBudget {
  /**
   * Weigh the whole operation of `info`, once per execution. Returns true when it is within the bounds. Over them,
   * throws the one error of the document for the first field that asks, and returns false for every other.
   */
  admit(info: GraphQLResolveInfo): boolean;
  /**
   * Run an admitted field's statements inside the document's turn of its engines' admission (docs/security.md, Fair
   * share): the document takes one turn for all its list fields, weighed together, given back when its last field
   * ends. Resolves null for every field but the first when the document is refused (`overloaded`).
   */
  run<T>(info: GraphQLResolveInfo, context: unknown, work: () => Promise<T>): Promise<T | null>;
  /**
   * When the document's first listql field started (a `performance.now()` instant): every field's request deadline
   * counts from it, so the document's fields share one `requestTimeout` (docs/security.md, Request deadline).
   */
  started(info: GraphQLResolveInfo): number;
}

/**
 * Build the field extensions of a connection field: its engine's pricer over the query its resolver builds (the
 * whole tree of the field's selection, so every nested level is counted).
 */
export function priceExtension<A>(
  engine: object,
  queryOf: (args: A, info: GraphQLResolveInfo) => QueryInput,
): Record<string, FieldPrice> {
  const work = requestWorkOf(engine);
  if (!work) throw new TypeError('graphqlSchema: the engine is not a listql engine');
  return dynamicPriceExtension((args, info) => work(queryOf(args as A, info)));
}

/** Build the field extensions of a field that prices itself (`node(id:)`, whose engine depends on the id). */
export function dynamicPriceExtension(price: FieldPrice): Record<string, FieldPrice> {
  return { [PRICE_EXTENSION]: price };
}

/** Fill in and check a schema's limits (the engines give the default maxSubqueries), and build its guard. */
export function documentBudget(
  limits: GraphQLLimits | undefined,
  engines: readonly { describe(): { readonly limits: { readonly maxSubqueries: number } } }[],
): DocumentBudget {
  const bounds: Bounds = {
    ...DEFAULT_GRAPHQL_LIMITS,
    maxSubqueries: Math.max(DEFAULT_LIMITS.maxSubqueries, ...engines.map((e) => e.describe().limits.maxSubqueries)),
    ...Object.fromEntries(Object.entries(limits ?? {}).filter(([, v]) => v !== undefined)),
  };
  for (const [name, value] of Object.entries(bounds))
    if (!Number.isInteger(value) || value < 1)
      throw new TypeError(`graphqlSchema: limits.${name} must be a positive integer`);
  const verdictOf = verdicts(bounds);
  // The admissions of the schema's engines (usually one: the engines of one ORM share it), in one fixed order.
  const admissions = [...new Set(engines.map((engine) => admissionOf(engine)))].filter(
    (admission): admission is Admission => admission !== undefined,
  );
  return {
    admit(info) {
      const verdict = verdictOf(info);
      if (verdict.error === undefined) return true;
      if (verdict.reported) return false;
      verdict.reported = true;
      throw verdict.error;
    },
    started(info) {
      const verdict = verdictOf(info);
      verdict.started ??= performance.now();
      return verdict.started;
    },
    run(info, context, work) {
      const verdict = verdictOf(info);
      if (admissions.length === 0) return work();
      verdict.admission ??= new DocumentAdmission(admissions, verdict.weight, verdict.slots ?? verdict.fields);
      const signals = executionSignals(context, info);
      return verdict.admission.run(signals.length > 1 ? AbortSignal.any(signals) : signals[0], work);
    },
  };
}

/**
 * Each execution's verdict, keyed on the operation, then on the execution's variable values (a fresh object for each
 * execution in graphql-js, even without variables). An admitted operation's weight is also kept with its nodes and
 * variable values (acrossExecutions): a kept document sent again with the same variables is not weighed again. A
 * refusal is weighed each time.
 */
function verdicts(bounds: Bounds): (info: GraphQLResolveInfo) => Verdict {
  const weighed = acrossExecutions(
    (_: undefined, info: GraphQLResolveInfo) => weigh(info, bounds),
    (info) => info.operation,
    undefined,
    (weight) => weight.error === undefined,
  );
  const verdicts = new WeakMap<object, WeakMap<object, Verdict>>();
  return (info: GraphQLResolveInfo): Verdict => {
    let byExecution = verdicts.get(info.operation);
    if (!byExecution) {
      byExecution = new WeakMap();
      verdicts.set(info.operation, byExecution);
    }
    const key = (info.variableValues as object | null | undefined) ?? info.operation;
    let verdict = byExecution.get(key);
    if (!verdict) {
      verdict = { ...weighed(undefined, info), reported: false };
      byExecution.set(key, verdict);
    }
    return verdict;
  };
}

/** What weighing an operation found: the error refusing it, or nothing; its list fields' weight and number. */
interface Weight {
  readonly error?: unknown;
  /** The weight of the document's list fields together, and how many there are. */
  readonly weight: number;
  readonly fields: number;
  /** The connections its fields may hold at once, together (each field's nested levels and count side by side). */
  readonly slots?: number;
}

/** One execution's verdict: its weight, and what its fields did with it. */
interface Verdict extends Weight {
  reported: boolean;
  /** The document's turn, once a field asked for it. */
  admission?: DocumentAdmission;
  /** When the document's first field started: the start of its one request deadline. */
  started?: number;
}

/** Sum the work of every listql field of the operation and compare it with the bounds, in the order listed. */
function weigh(info: GraphQLResolveInfo, bounds: Bounds): Weight {
  const total = { maxFields: 0, maxStatements: 0, maxRows: 0, maxSubqueries: 0 };
  let weight = 0;
  let slots = 0;
  try {
    const fields = executedFields(info, (field) => priceOf(field) !== undefined);
    total.maxFields = fields.length;
    // Past maxFields the verdict is known: price no field (each costs a parse and a bind).
    if (total.maxFields <= bounds.maxFields)
      for (const executed of fields) {
        const work = fieldWork(executed, info);
        total.maxStatements += work.statements;
        total.maxRows += work.rows;
        total.maxSubqueries += work.subqueries;
        weight += weightOf(work);
        slots += work.connections ?? 1;
      }
  } catch (err) {
    // A document too deep to walk (only when validation was skipped), or a fault: refuse it whole, run nothing.
    const error = err instanceof RangeError ? documentLimitError('maxDepth', err.message) : err;
    return { error, weight, fields: total.maxFields };
  }
  const messages: Record<keyof Bounds, string> = {
    maxFields: 'list fields',
    maxStatements:
      'statements (each list field and each nested relation runs one, one more with totalCount, and one per facet)',
    maxRows: 'rows (the page sizes of every list field and nested level together; ask for smaller pages with first)',
    maxSubqueries: 'relationship sub-queries in the filters of every list field together',
  };
  for (const name of Object.keys(messages) as (keyof Bounds)[])
    if (total[name] > bounds[name]) {
      const message = `the document needs ${total[name]} ${messages[name]}, more than ${bounds[name]} (${name})`;
      return { error: documentLimitError(name, message), weight, fields: total.maxFields };
    }
  return { weight, fields: total.maxFields, slots: Math.max(slots, total.maxFields) };
}

function priceOf(field: GraphQLField<unknown, unknown>): FieldPrice | undefined {
  const price = field.extensions?.[PRICE_EXTENSION];
  return typeof price === 'function' ? (price as FieldPrice) : undefined;
}

/**
 * The work of one field, priced through the info its resolver will get. A field whose arguments are refused costs
 * nothing: its resolver fails with that same error before any statement, exactly as it would alone.
 */
function fieldWork({ field, parentType, responseKey, nodes }: ExecutedField, info: GraphQLResolveInfo): RequestWork {
  const fieldInfo: GraphQLResolveInfo = {
    ...info,
    fieldName: field.name,
    fieldNodes: nodes,
    returnType: field.type,
    parentType,
    path: { prev: undefined, key: responseKey, typename: parentType.name },
  };
  try {
    return priceOf(field)!(getArgumentValues(field, nodes[0]!, info.variableValues), fieldInfo);
  } catch (err) {
    if (err instanceof GraphQLError || isListError(err)) return { subqueries: 0, statements: 0, rows: 0 };
    throw err;
  }
}
