import type { MetadataStorage } from '@mikro-orm/core';

/**
 * Aliases listql generates for its own sub-queries and joins start with this prefix. MikroORM's own aliases are a
 * letter and a number (`p1`), so `lq…` does not collide with them; names that are taken anyway (a table named
 * `lq1`, a base scope aliased `lq2`) are skipped by the generator.
 */
export const ALIAS_PREFIX = 'lq';

/** Hands out fresh aliases for one query: `lq1`, `lq2`, … */
export type AliasGenerator = () => string;

/**
 * Create an alias generator for one query; each query gets its own counter. Names in `taken` (compared without
 * case, as unquoted SQL identifiers are) are never handed out.
 */
export function createAliasGenerator(taken: Iterable<string> = []): AliasGenerator {
  const skip = new Set([...taken].map((name) => name.toLowerCase()));
  let counter = 0;
  return () => {
    let alias: string;
    do alias = `${ALIAS_PREFIX}${++counter}`;
    while (skip.has(alias));
    return alias;
  };
}

/**
 * createAliasGenerator() over names already in lower case (tableNamesOf()'s, shared, never copied) and a few more:
 * the planner's generator, made per query.
 */
export function aliasGeneratorSkipping(lowerCase: ReadonlySet<string>, more: readonly string[]): AliasGenerator {
  const extra = more.map((name) => name.toLowerCase());
  let counter = 0;
  return () => {
    let alias: string;
    do alias = `${ALIAS_PREFIX}${++counter}`;
    while (lowerCase.has(alias) || extra.includes(alias));
    return alias;
  };
}

const tableNames = new WeakMap<MetadataStorage, ReadonlySet<string>>();

/**
 * List every table and pivot-table name an ORM knows (with and without its schema), so generated aliases can
 * avoid them; computed once per metadata storage.
 */
export function tableNamesOf(metadata: MetadataStorage): ReadonlySet<string> {
  const known = tableNames.get(metadata);
  if (known) return known;
  const names = new Set<string>();
  const add = (name: string | undefined) => {
    if (!name) return;
    names.add(name.toLowerCase());
    const dot = name.lastIndexOf('.');
    if (dot >= 0) names.add(name.slice(dot + 1).toLowerCase());
  };
  for (const meta of metadata.getAll().values()) {
    add(meta.tableName);
    for (const prop of meta.props) add(prop.pivotTable);
  }
  tableNames.set(metadata, names);
  return names;
}
