import {
  type ASTVisitor,
  type DocumentNode,
  execute,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type ParseOptions,
  parse,
  type SelectionSetNode,
  Source,
  type ValidationContext,
  type ValidationRule,
  validate,
} from 'graphql';
import { exceedsBytes } from '../syntax/bytes.ts';
import { compiledExecute } from './compiled-execute.ts';
import { type DocumentCacheOptions, documentCache } from './document-cache.ts';
import { documentLimitError } from './limit-error.ts';

/** Bounds on a GraphQL document itself, checked before it is executed; every bound is a positive integer. */
export interface DocumentLimitOptions {
  /** The document's source, in UTF-8 bytes (default 32 KiB). */
  readonly maxBytes?: number | undefined;
  /** Lexical tokens of the document (default 1000), graphql-js's own `maxTokens`. */
  readonly maxTokens?: number | undefined;
  /** Nesting of fields in an operation, fragments included (default 15: graphql-js's introspection query passes). */
  readonly maxDepth?: number | undefined;
  /**
   * Keep parsed and validated documents by their text (least recently used first out), so a repeated document
   * skips graphql-js's parse and validation, and its list fields reuse their engine requests: on by default (500
   * documents, 4 MiB of sources), bounds to change them, `false` to parse and validate every document.
   */
  readonly cache?: boolean | DocumentCacheOptions | undefined;
}

/** The defaults of DocumentLimitOptions. */
export const DEFAULT_DOCUMENT_LIMITS = Object.freeze({ maxBytes: 32 * 1024, maxTokens: 1000, maxDepth: 15 });

/** What a GraphQL server takes to bound documents: a parse function, parse options and validation rules. */
export interface DocumentLimits {
  /** graphql-js's `parse` within maxBytes and maxTokens (graphql-http's `parse`, Yoga's `onParse`). */
  readonly parse: (source: string | Source, options?: ParseOptions) => DocumentNode;
  /** graphql-js parse options that carry maxTokens (Apollo Server's `parseOptions`). */
  readonly parseOptions: { readonly maxTokens: number };
  /** The rule that bounds depth (graphql-http's and Apollo Server's `validationRules`, Yoga's `onValidate`). */
  readonly validationRules: readonly ValidationRule[];
  /**
   * graphql-js's `validate`; with the cache (the default), it answers a document that `parse` returned from what it
   * answered before for the same schema and rules (graphql-http's `validate`).
   */
  readonly validate: typeof validate;
  /**
   * graphql-js's `execute`; with the cache (the default), a document `parse` returned that selects only listql
   * connections (graphqlSchema()'s root fields, at any depth) is answered by a writer compiled for it, without
   * graphql-js resolving each field of each item: the same answer, the same guards (graphql-http's `execute`).
   */
  readonly execute: typeof execute;
}

/**
 * Bound GraphQL documents before execution: a parse function that refuses sources over `maxBytes` and stops at
 * `maxTokens`, and a validation rule that refuses operations nested deeper than `maxDepth`. Each refusal is one
 * GraphQL error with `extensions: { code: 'limit_exceeded', limit }`, naming the bound.
 *
 * Unless `cache` is false, a document within maxBytes that parses is kept by its text, with its validation errors
 * per schema: the same text sent again is neither parsed nor validated. A refused document is parsed again each
 * time, and one over maxBytes is never read.
 *
 * Its `execute` answers a kept document that selects only listql connections without graphql-js resolving each field
 * of each item (docs/graphql.md, Executing a kept document), and is graphql-js's for anything else.
 *
 * @example
 * createHandler({ schema, parse: limits.parse, validate: limits.validate, validationRules: limits.validationRules,
 *   execute: limits.execute })
 */
export function documentLimits(options: DocumentLimitOptions = {}): DocumentLimits {
  const bounds: { maxBytes: number; maxTokens: number; maxDepth: number } = { ...DEFAULT_DOCUMENT_LIMITS };
  const { cache: cacheOptions, ...limits } = options;
  for (const [name, value] of Object.entries(limits)) {
    if (value === undefined) continue;
    if (!(name in bounds)) throw new TypeError(`documentLimits: ${name} is not a known setting`);
    if (!Number.isInteger(value) || value < 1)
      throw new TypeError(`documentLimits: ${name} must be a positive integer`);
    bounds[name as keyof typeof bounds] = value;
  }
  const { maxBytes, maxTokens, maxDepth } = bounds;
  const cache =
    cacheOptions === false ? undefined : documentCache(typeof cacheOptions === 'object' ? cacheOptions : {});
  const boundedParse = (source: string | Source, parseOptions?: ParseOptions): DocumentNode => {
    const tokens = Math.min(maxTokens, parseOptions?.maxTokens ?? maxTokens);
    try {
      return parse(source, { ...parseOptions, maxTokens: tokens });
    } catch (err) {
      // graphql-js 16 says "more that N tokens", 17 "more than N tokens".
      if (!(err instanceof GraphQLError) || !err.message.includes(` ${tokens} tokens`)) throw err;
      const message = `the document has more than ${tokens} tokens (maxTokens)`;
      const place = { source: typeof source === 'string' ? new Source(source) : source, positions: err.positions };
      throw documentLimitError('maxTokens', message, place);
    }
  };
  return Object.freeze({
    parse(source: string | Source, parseOptions?: ParseOptions): DocumentNode {
      const text = typeof source === 'string' ? source : source.body;
      if (exceedsBytes(text, maxBytes))
        throw documentLimitError('maxBytes', `the document is longer than ${maxBytes} bytes (maxBytes)`);
      // Only a plain text with no options is kept: a Source names itself in errors, options change the result.
      if (!cache || typeof source !== 'string' || parseOptions !== undefined) return boundedParse(source, parseOptions);
      return cache.parse(source, () => boundedParse(source));
    },
    parseOptions: Object.freeze({ maxTokens }),
    validationRules: Object.freeze([depthRule(maxDepth)]),
    validate: cache?.validate ?? validate,
    execute: cache ? compiledExecute(cache.has) : execute,
  });
}

/** Build the rule that reports each operation nested deeper than `maxDepth` fields. */
function depthRule(maxDepth: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    // A fragment's own depth does not depend on where it is spread: measure each once.
    const measured = new Map<string, number>();
    const depthOf = (set: SelectionSetNode | undefined, open: ReadonlySet<string>): number => {
      let deepest = 0;
      for (const selection of set?.selections ?? []) {
        if (selection.kind === Kind.FIELD) deepest = Math.max(deepest, 1 + depthOf(selection.selectionSet, open));
        else if (selection.kind === Kind.INLINE_FRAGMENT)
          deepest = Math.max(deepest, depthOf(selection.selectionSet, open));
        else deepest = Math.max(deepest, fragmentDepth(context.getFragment(selection.name.value), open));
        // Stop early: nothing below matters once the bound is crossed, and deep documents stay cheap to refuse.
        if (deepest > maxDepth) return deepest;
      }
      return deepest;
    };
    const fragmentDepth = (fragment: FragmentDefinitionNode | null | undefined, open: ReadonlySet<string>) => {
      // An unknown or cyclic spread is another rule's error (KnownFragmentNames, NoFragmentCycles).
      if (!fragment || open.has(fragment.name.value)) return 0;
      const name = fragment.name.value;
      let depth = measured.get(name);
      if (depth === undefined) {
        depth = depthOf(fragment.selectionSet, new Set([...open, name]));
        measured.set(name, depth);
      }
      return depth;
    };
    return {
      OperationDefinition(node) {
        const depth = depthOf(node.selectionSet, new Set());
        if (depth > maxDepth)
          context.reportError(
            documentLimitError('maxDepth', `the operation nests fields more than ${maxDepth} deep (maxDepth)`, {
              nodes: [node],
            }),
          );
        return false;
      },
    };
  };
}
