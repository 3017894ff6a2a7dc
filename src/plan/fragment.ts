/** A piece of SQL text whose values are `?` placeholders, with the values in placeholder order. */
export interface SqlFragment {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** Join fragments with a separator, keeping their parameters in order. */
export function joinFragments(parts: readonly SqlFragment[], separator: string): SqlFragment {
  return { sql: parts.map((p) => p.sql).join(separator), params: parts.flatMap((p) => p.params) };
}
