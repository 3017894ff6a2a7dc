import { CompiledQuery, type Kysely } from 'kysely';
import { invalidSchema } from '../../errors.ts';

/** PostgreSQL settings for one request's statements, as `[name, value]` pairs in the order they are set. */
export type SessionSettings = readonly (readonly [string, string])[];

/**
 * Validate `ctx.pgSettings` (a plain object of setting names to text values) and return its pairs, or undefined
 * when there are none. Throws `invalid_schema`: these come from the application, never from a client.
 */
export function sessionSettings(pgSettings: unknown): SessionSettings | undefined {
  if (pgSettings === undefined) return undefined;
  if (typeof pgSettings !== 'object' || pgSettings === null || Array.isArray(pgSettings))
    throw invalidSchema('ctx.pgSettings must be an object of setting names to string values');
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(pgSettings)) {
    if (name === '' || /\s/.test(name)) throw invalidSchema(`ctx.pgSettings: "${name}" is not a setting name`);
    // The engine sets it per statement from statementTimeout; a second source would silently lose to one of them.
    if (name.toLowerCase() === 'statement_timeout')
      throw invalidSchema('ctx.pgSettings: use ctx.statementTimeout instead of statement_timeout');
    if (typeof value !== 'string')
      throw invalidSchema(`ctx.pgSettings: the value of "${name}" must be a string (convert numbers with String())`);
    pairs.push([name, value]);
  }
  return pairs.length === 0 ? undefined : pairs;
}

/**
 * Set the settings for the rest of the current transaction in one round trip, every name and value a bound
 * parameter: `select set_config($1, $2, true), set_config($3, $4, true)`.
 */
export async function applySettings(db: Kysely<any>, settings: SessionSettings): Promise<void> {
  const calls = settings.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`);
  await db.executeQuery(CompiledQuery.raw(`select ${calls.join(', ')}`, settings.flat()));
}

/**
 * Set the settings for the rest of a caller's transaction and return how to put their previous values back, one
 * round trip each: PostgreSQL evaluates the select list in order, so each `current_setting` reads the value before
 * the `set_config` that follows it. A custom setting that did not exist comes back as the empty string (PostgreSQL
 * keeps a placeholder for it until the session ends).
 */
export async function swapSettings(db: Kysely<any>, settings: SessionSettings): Promise<() => Promise<void>> {
  const calls = settings.map(
    (_, i) => `current_setting($${2 * i + 1}, true) as p${i}, set_config($${2 * i + 1}, $${2 * i + 2}, true) as n${i}`,
  );
  const { rows } = await db.executeQuery<Record<string, string | null>>(
    CompiledQuery.raw(`select ${calls.join(', ')}`, settings.flat()),
  );
  const previous: SessionSettings = settings.map(([name], i) => [name, rows[0]?.[`p${i}`] ?? '']);
  return () => applySettings(db, previous);
}
