import { type EntityDTO, type EntityManager, type EntityName, serialize } from '@mikro-orm/core';

/** One list item: the entity as MikroORM serializes it (public names, hidden properties left out). */
export type Item = Record<string, unknown>;

/**
 * Serialize rows of a data query as MikroORM serializes the entity: public (`serializedName`) names, `hidden`
 * properties omitted, custom serializers honoured, only the columns the query selected. Rows are hydrated in a
 * throw-away fork, so nothing stays in the caller's identity map and a long walk keeps memory flat. (The engine
 * tries its compiled item writer first, which gives the same items without hydrating.)
 */
export function serializeRows(em: EntityManager, entity: EntityName<any>, rows: readonly Item[]): Item[] {
  if (rows.length === 0) return [];
  const fork = em.fork({ clear: true, useContext: false });
  try {
    // `mapped: true`: the rows already carry property names and JavaScript values (qb.execute('all') mapped them).
    const entities = rows.map((row) => fork.map(entity, row, { mapped: true } as never) as object);
    return serialize(entities) as EntityDTO<object>[] as Item[];
  } finally {
    fork.clear();
  }
}
