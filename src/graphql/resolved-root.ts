import type { GraphQLField } from 'graphql';

/** The field extension that marks a root connection field whose resolver reads a ResolvedRoot. */
const ROOT_CONNECTION = 'listqlRootConnection';

/**
 * The root value of an execution whose root connection fields were already resolved (by the compiled path, which
 * then hands the answer's completion to graphql-js): each such field's resolver returns, or throws, what it settled
 * to before, by response key, instead of running its request again.
 */
export class ResolvedRoot {
  readonly #settled: ReadonlyMap<string, PromiseSettledResult<unknown>>;

  constructor(settled: ReadonlyMap<string, PromiseSettledResult<unknown>>) {
    this.#settled = settled;
  }

  /** Return the value the field under `key` resolved to, or throw what it threw; undefined for no such field. */
  take(key: string | number): Promise<unknown> | undefined {
    const settled = this.#settled.get(String(key));
    if (!settled) return undefined;
    return settled.status === 'fulfilled' ? Promise.resolve(settled.value) : Promise.reject(settled.reason);
  }
}

/** The extensions of a root connection field built by graphqlSchema(). */
export function rootConnectionExtension(): Record<string, true> {
  return { [ROOT_CONNECTION]: true };
}

/** Tell whether a field is a root connection field built by graphqlSchema() (its resolver reads a ResolvedRoot). */
export function isRootConnection(field: GraphQLField<unknown, unknown> | undefined): boolean {
  return field?.extensions?.[ROOT_CONNECTION] === true;
}
