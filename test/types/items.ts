/**
 * Type fixture of list items (`npm run typecheck`; never run): the items an engine returns are typed from the
 * policy's entity, as the engine serializes them. Each `@ts-expect-error` line must fail to compile.
 */
import type { MikroORM } from '@mikro-orm/core';
import { createEngine, type Engine, type ListItem, type PolicyItem, schema } from '../../src/index.ts';
import type { AnyQueryBuilder } from '../../src/plan/plan-query.ts';
import { Invoice } from './decorated.ts';
import { Article, type Author, LabelSchema, LooseSchema, Task, type User } from './entities.ts';

/** Exact type equality, so a fixture fails when an item type grows or shrinks. */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
function expectType<A, B>(_proof: Equal<A, B>): void {}

declare const orm: MikroORM;
declare const qb: AnyQueryBuilder;

// A class entity: public names ([PublicNames]), hidden and collections left out, relations as primary keys.
expectType<
  ListItem<Task>,
  {
    id: number;
    title: string;
    code: string;
    done: boolean;
    estimate?: number | null;
    views: string;
    dueOn?: Date | null;
    labels?: string[];
    assignee: number;
    project?: number | null;
  }
>(true);
// The Hidden<…> brand hides, Opt<…> stays the value it wraps.
expectType<keyof ListItem<User>, 'id' | 'name' | 'email' | 'active' | 'createdAt'>(true);

async function items(): Promise<void> {
  const tasks = createEngine(orm, { policy: schema(Task).expose('title') });
  const page = await tasks.from(qb).list('limit=5');
  const first = page.items[0];
  if (first) {
    const title: string = first.title;
    const code: string = first.code;
    const assignee: number = first.assignee;
    // @ts-expect-error hidden properties are not in items
    first.internalNote;
    // @ts-expect-error serialized as `code`
    first.sku;
    // @ts-expect-error collections are not in items
    first.tags;
    // @ts-expect-error a relation is its primary key, not the entity
    first.assignee.name;
    void [title, code, assignee];
  }
  for await (const task of tasks.from(qb).items('')) expectType<typeof task, ListItem<Task>>(true);
  for await (const p of tasks.from(qb).pages('')) expectType<(typeof p.items)[number], ListItem<Task>>(true);

  // EntitySchema of an interface.
  const labels = createEngine(orm, { policy: schema(LabelSchema).expose('text') });
  expectType<Awaited<ReturnType<ReturnType<typeof labels.from>['list']>>['items'][number], ListItem<Label>>(true);

  // defineEntity: a Ref is its key; a nullable m:1 its key or null; hidden properties left out.
  expectType<keyof ListItem<InferredAuthor>, 'id' | 'name' | 'born' | 'verified'>(true);
  const article = (
    await createEngine(orm, { policy: schema(Article) })
      .from(qb)
      .list('')
  ).items[0]!;
  const authorKey: number = article.author;
  const editorKey: number | null | undefined = article.editor;
  const rated: boolean = article.rated;
  // @ts-expect-error a relation is its primary key
  article.author.name;
  void [authorKey, editorKey, rated];

  // A decorated class: Ref<User> is the user's key; decimals stay the string type the class declares.
  const invoice = (
    await createEngine(orm, { policy: schema(Invoice) })
      .from(qb)
      .list('')
  ).items[0]!;
  expectType<typeof invoice, { id: number; total: string; paid: boolean; issuedAt: Date; customer: number }>(true);

  // An entity typed `any` gives plain records; so does an engine typed without arguments.
  const loose = (
    await createEngine(orm, { policy: schema(LooseSchema) })
      .from(qb)
      .list('')
  ).items[0]!;
  expectType<typeof loose, Record<string, unknown>>(true);
  const untyped: Engine = tasks;
  void untyped;

  // A union of policies gives the union of their items; PolicyItem names a policy's item type.
  const either = Math.random() > 0.5 ? schema(Task) : schema(Invoice);
  const mixed = (await createEngine(orm, { policy: either }).from(qb).list('')).items[0]!;
  expectType<typeof mixed, ListItem<Task> | ListItem<Invoice>>(true);
  expectType<PolicyItem<typeof either>, ListItem<Task> | ListItem<Invoice>>(true);
  // @ts-expect-error a Task item has no `paid`
  const paid: boolean = first?.paid;
  void paid;
}

type Label = import('./entities.ts').Label;
type InferredAuthor = import('@mikro-orm/core').InferEntity<typeof Author>;

export { items };
