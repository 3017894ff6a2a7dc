import {
  type DocumentNode,
  GraphQLError,
  type GraphQLSchema,
  validate as graphqlValidate,
  type ValidationRule,
} from 'graphql';
import { mapFor, setBounded } from '../bounded-map.ts';
import { utf8Length } from '../syntax/bytes.ts';

/** Bounds on the documents a cache keeps; both are positive integers. */
export interface DocumentCacheOptions {
  /** Documents kept at most (default 500); the least recently used goes first. */
  readonly max?: number | undefined;
  /** UTF-8 bytes of the kept documents' sources, all together (default 4 MiB). */
  readonly maxTotalBytes?: number | undefined;
}

/** The defaults of DocumentCacheOptions. */
export const DEFAULT_DOCUMENT_CACHE = Object.freeze({ max: 500, maxTotalBytes: 4 * 1024 * 1024 });

/** Rule sets remembered per document and schema: a server passes the same rules each time, so a few suffice. */
const RULE_SETS = 4;

/** One kept document: its parse, and its validation errors per schema, then per rule set. */
interface Entry {
  readonly bytes: number;
  readonly document: DocumentNode;
  readonly verdicts: WeakMap<GraphQLSchema, Map<string, readonly GraphQLError[]>>;
}

/** A least-recently-used store of parsed documents by their text, with their validation results. */
export interface DocumentCache {
  /** The document kept for `text`, or the one `parse(text)` returns, kept when it parses (errors are thrown). */
  parse(text: string, parse: () => DocumentNode): DocumentNode;
  /** graphql-js's `validate`, remembered per schema, document and rules for documents this cache returned. */
  readonly validate: typeof graphqlValidate;
  /** Tell whether `document` is one this cache returned and still keeps. */
  has(document: DocumentNode): boolean;
  /** Documents kept now. */
  readonly size: number;
}

/**
 * Build a document cache. Parsing and validating a document costs graphql-js far more than most list queries cost
 * to plan, and clients send the same few documents again and again, so a repeated text skips both. Validation is
 * pure in (schema, document, rules): it never sees variables or the operation name, so its result, errors
 * included, is the same for every request that sends the same text. Results never cross schemas.
 */
export function documentCache(options: DocumentCacheOptions = {}): DocumentCache {
  const max = bound('max', options.max ?? DEFAULT_DOCUMENT_CACHE.max);
  const maxTotalBytes = bound('maxTotalBytes', options.maxTotalBytes ?? DEFAULT_DOCUMENT_CACHE.maxTotalBytes);
  // A Map iterates in insertion order: re-inserting on a hit makes its first key the least recently used.
  const entries = new Map<string, Entry>();
  const byDocument = new WeakMap<DocumentNode, Entry>();
  let totalBytes = 0;
  const rulesKey = ruleSetKeys();
  const validate: typeof graphqlValidate = (schema, document, rules, ...more) => {
    const entry = byDocument.get(document);
    // Options (maxErrors, …) change the result: such calls, and documents parsed elsewhere, are not remembered.
    if (!entry || more.length > 0) return graphqlValidate(schema, document, rules, ...more);
    const bySchema = mapFor(entry.verdicts, schema);
    const key = rules === undefined ? 'specified' : rulesKey(rules);
    let errors = bySchema.get(key);
    if (errors === undefined) {
      errors = graphqlValidate(schema, document, rules);
      setBounded(bySchema, key, errors, RULE_SETS);
    }
    return errors.map(copyError);
  };
  return {
    parse(text, parse) {
      const kept = entries.get(text);
      if (kept) {
        entries.delete(text);
        entries.set(text, kept);
        return kept.document;
      }
      const document = parse();
      const bytes = utf8Length(text);
      if (bytes > maxTotalBytes) return document;
      const entry: Entry = { bytes, document, verdicts: new WeakMap() };
      entries.set(text, entry);
      byDocument.set(document, entry);
      totalBytes += bytes;
      for (const [oldest, old] of entries) {
        if (entries.size <= max && totalBytes <= maxTotalBytes) break;
        entries.delete(oldest);
        byDocument.delete(old.document);
        totalBytes -= old.bytes;
      }
      return document;
    },
    validate,
    has: (document) => byDocument.has(document),
    get size() {
      return entries.size;
    },
  };
}

/**
 * Name rule sets by the identity of their rules, in order: graphql-http passes a fresh array for each request, of
 * the same rule functions each time. The last array's rules and key are kept: a request with the same rules in the
 * same order (every request of one server) is named by comparing them, one identity check a rule.
 */
function ruleSetKeys(): (rules: readonly ValidationRule[]) => string {
  const ids = new WeakMap<ValidationRule, number>();
  let next = 0;
  let last: readonly ValidationRule[] = [];
  let lastKey = '';
  return (rules) => {
    if (rules === last || (rules.length === last.length && rules.every((rule, i) => rule === last[i]))) return lastKey;
    let key = '';
    for (const rule of rules) {
      let id = ids.get(rule);
      if (id === undefined) {
        id = next++;
        ids.set(rule, id);
      }
      key += `${id},`;
    }
    last = [...rules];
    lastKey = key;
    return key;
  };
}

function bound(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new TypeError(`documentLimits: cache.${name} must be a positive integer`);
  return value;
}

/** A fresh error equal to a remembered one, so a server that decorates errors never changes what is kept. */
function copyError(error: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes ?? null,
    source: error.source ?? null,
    positions: error.positions ?? null,
    path: error.path ?? null,
    originalError: error.originalError ?? null,
    extensions: { ...error.extensions },
  });
}
