/**
 * Entities of the type fixtures, in every form MikroORM accepts: plain classes for EntitySchema, an
 * EntitySchema without a class, and defineEntity results. Compiled by `npm run typecheck`; never run.
 */
import {
  type Collection,
  defineEntity,
  EntitySchema,
  type Hidden,
  HiddenProps,
  type Opt,
  p,
  type Ref,
} from '@mikro-orm/core';
import { PublicNames } from '../../src/index.ts';

export class User {
  id!: number;
  name!: string;
  email?: string | null;
  password!: Hidden<string>;
  active!: boolean;
  createdAt!: Opt<Date>;
  tasks!: Collection<Task>;
}

export class Project {
  id!: number;
  title!: string;
  archived!: boolean;
  owner!: Ref<User>;
}

export class Task {
  [HiddenProps]?: 'internalNote';
  declare [PublicNames]?: { sku: 'code' };
  id!: number;
  title!: string;
  sku!: string;
  done!: boolean;
  estimate?: number | null;
  views!: bigint;
  dueOn?: Date | null;
  labels?: string[];
  internalNote?: string;
  assignee!: User;
  project?: Ref<Project> | null;
  tags!: Collection<Tag>;
  describe(): string {
    return this.title;
  }
}

export class Tag {
  id!: number;
  label!: string;
}

export const UserSchema = new EntitySchema<User>({
  class: User,
  properties: {
    id: { type: 'integer', primary: true },
    name: { type: 'string' },
    email: { type: 'string', nullable: true },
    password: { type: 'string', hidden: true },
    active: { type: 'boolean' },
    createdAt: { type: 'datetime' },
    tasks: { kind: '1:m', entity: () => Task, mappedBy: 'assignee' },
  },
});

/** An EntitySchema of an interface, with no class. */
export interface Label {
  id: number;
  text: string;
  weight: number;
}

export const LabelSchema = new EntitySchema<Label>({
  name: 'Label',
  properties: {
    id: { type: 'integer', primary: true },
    text: { type: 'string' },
    weight: { type: 'integer' },
  },
});

/** An EntitySchema with neither class nor type argument: its entity type is `any`. */
export const LooseSchema = new EntitySchema({
  name: 'Loose',
  properties: { id: { type: 'integer', primary: true }, anything: { type: 'string' } },
});

export const Author = defineEntity({
  name: 'Author',
  properties: {
    id: p.integer().primary(),
    name: p.string(),
    born: p.datetime().nullable(),
    secret: p.string().hidden(),
    verified: p.boolean(),
  },
});

export const Article = defineEntity({
  name: 'Article',
  properties: {
    id: p.integer().primary(),
    headline: p.string(),
    words: p.integer(),
    author: () => p.manyToOne(Author).ref(),
    editor: () => p.manyToOne(Author).nullable(),
    rated: p.boolean(),
  },
});
