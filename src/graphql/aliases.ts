import { ITEM_KEYS, type NodeLevel } from './node-source.ts';

/**
 * Internal aliases: a nested result whose response key the level's items already hold for something else (the key,
 * a picked field) is fetched under another item key, and its resolvers are told where to read it.
 */

/** The internal aliases of one level: response key → item key, and the levels below that have some. */
export interface AliasLevel {
  readonly keys?: ReadonlyMap<string, string>;
  readonly children: ReadonlyMap<string, { readonly many: boolean; readonly level: AliasLevel }>;
}

/** Tell the items of an answer (and their nested items) which item keys hold the aliased response keys. */
export function attachAliases(items: readonly object[], level: AliasLevel): void {
  for (const item of items as Record<string | symbol, unknown>[]) {
    if (level.keys) item[ITEM_KEYS] = level.keys;
    for (const [key, child] of level.children) {
      const value = item[key] as { items?: readonly object[] } | null | undefined;
      if (value == null) continue;
      attachAliases(child.many ? (value.items ?? []) : [value], child.level);
    }
  }
}

/** A free item key for an internal alias: none of the level's names, response keys or other aliases. */
export function freeAlias(
  level: NodeLevel,
  groups: ReadonlyMap<string, unknown>,
  keys: ReadonlyMap<string, string>,
): string {
  const used = new Set(keys.values());
  for (let i = 1; ; i++) {
    const candidate = `lq_${i}`;
    if (!level.names.has(candidate) && !groups.has(candidate) && !used.has(candidate) && !level.key.includes(candidate))
      return candidate;
  }
}
