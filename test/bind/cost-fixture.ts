/**
 * A small model for the cost budget's charges and the plan check: shelves with a nullable `rank` (a nullable sort key,
 * whose continuation pages PostgreSQL, MySQL and MariaDB read as a UNION ALL of branches), an owner (to-one, for
 * sorts through a relation) and notes (to-many, for quantifiers), with labels that hold regular-expression and LIKE
 * metacharacters, non-ASCII letters and a trailing newline.
 */
import { type Collection, type EntityManager, EntitySchema } from '@mikro-orm/core';
import { filterable, schema, sortable } from '../../src/index.ts';

export class Owner {
  id!: number;
  name!: string;
}

export class Shelf {
  id!: number;
  label!: string;
  rank?: number | null;
  owner!: Owner;
  notes?: Collection<Note>;
}

export class Note {
  id!: number;
  shelf!: Shelf;
  text!: string;
  stars!: number;
}

const id = { type: 'integer', primary: true, autoincrement: false } as const;

export const COST_ENTITIES = [
  new EntitySchema<Owner>({ class: Owner, properties: { id, name: { type: 'string' } } }),
  new EntitySchema<Shelf>({
    class: Shelf,
    properties: {
      id,
      label: { type: 'string' },
      rank: { type: 'integer', nullable: true },
      owner: { kind: 'm:1', entity: () => Owner },
      notes: { kind: '1:m', entity: () => Note, mappedBy: 'shelf' } as never,
    },
  }),
  new EntitySchema<Note>({
    class: Note,
    properties: {
      id,
      shelf: { kind: 'm:1', entity: () => Shelf },
      text: { type: 'string' },
      stars: { type: 'integer' },
    },
  }),
];

/** Shelf id → label (and rank): written out so each test row can name the ids it expects by hand. */
export const LABELS: readonly (readonly [number, string, number | null])[] = [
  [1, 'Alpha', 1],
  [2, 'beta', null],
  [3, 'Gamma', 2],
  [4, 'ÄRGER', null],
  [5, 'a(b)', 3],
  [6, 'x.y', 4],
  [7, 'xzy', null],
  [8, 'a\\Eb', 5],
  [9, 'q\\Qz', 6],
  [10, 'abc\n', 7],
  [11, '\u212A', 8],
  [12, 'Straße', null],
];

export async function seedShelves(em: EntityManager): Promise<void> {
  const owners = [1, 2].map((o) => em.create(Owner, { id: o, name: `owner ${o}` }));
  for (const [shelfId, label, rank] of LABELS) {
    const shelf = em.create(Shelf, { id: shelfId, label, rank, owner: owners[shelfId % 2]! });
    em.create(Note, { id: shelfId * 10, shelf, text: `note of ${shelfId}`, stars: shelfId % 6 });
  }
  await em.flush();
}

const text = filterable('eq', 'ne', 'contains', 'startswith', 'ieq', 'ine', 'icontains', 'istartswith', 'iendswith');

/** Every field filterable, `label` with every operator, `rank` nullable and sortable, notes through quantifiers. */
export const shelfPolicy = schema(Shelf)
  .expose('id', filterable(), sortable())
  .expose('label', text, sortable())
  .expose('rank', filterable(), sortable())
  .relation('owner', schema(Owner).expose('name', filterable(), sortable()))
  .relation('notes', schema(Note).expose('text', text).expose('stars', filterable()));

export function shelves(em: EntityManager) {
  return (em as unknown as { createQueryBuilder(entity: unknown, alias: string): any }).createQueryBuilder(Shelf, 's');
}
