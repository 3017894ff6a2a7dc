/**
 * Type fixture of what from() and list() take (`npm run typecheck`; never run): from() a QueryBuilder of the
 * policy's entity only, and the object form of a query with list parameters only. Each `@ts-expect-error` line
 * must fail to compile.
 */
import type { MikroORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { createEngine, fromQueryString, type ListParameters, type Policy, schema } from '../../src/index.ts';
import type { AnyQueryBuilder } from '../../src/plan/plan-query.ts';
import { LabelSchema, Project, Task, User } from './entities.ts';

declare const orm: MikroORM;
declare const em: SqlEntityManager;
declare const anyQb: AnyQueryBuilder;
declare const untypedPolicy: Policy;

async function scopes(): Promise<void> {
  const tasks = createEngine(orm, { policy: schema(Task).expose('title') });
  tasks.from(em.createQueryBuilder(Task, 't'));
  tasks.from(em.createQueryBuilder(Task, 't').where({ done: false }).select(['id', 'title']));
  tasks.from(anyQb);
  // @ts-expect-error a QueryBuilder of another entity than the policy's (a 500 at run time)
  tasks.from(em.createQueryBuilder(User, 'u'));
  // @ts-expect-error a QueryBuilder of another entity than the policy's (a 500 at run time)
  tasks.from(em.createQueryBuilder(Project));

  // An untyped policy takes any QueryBuilder, as before.
  createEngine(orm, { policy: untypedPolicy }).from(em.createQueryBuilder(User, 'u'));
  // An EntitySchema of an interface.
  const labels = createEngine(orm, { policy: schema(LabelSchema).expose('text') });
  labels.from(em.createQueryBuilder(LabelSchema, 'l'));
  // @ts-expect-error a QueryBuilder of another entity than the policy's
  labels.from(em.createQueryBuilder(Task, 't'));
  // A union of policies takes a QueryBuilder of either entity.
  const either = Math.random() < 0.5 ? schema(Task) : schema(User);
  const mixed = createEngine(orm, { policy: either });
  mixed.from(em.createQueryBuilder(Task));
  mixed.from(em.createQueryBuilder(User));
}

async function queries(): Promise<void> {
  const scoped = createEngine(orm, { policy: untypedPolicy }).from(anyQb);
  await scoped.list({ filter: "title eq 'a'", sort: '-title', limit: '5', cursor: undefined });
  await scoped.list({ limit: ['5'] });
  // @ts-expect-error a misspelt list parameter in the object form
  await scoped.list({ fitler: "title eq 'a'" });
  // @ts-expect-error a misspelt list parameter in the object form
  await scoped.explain({ sort: 'title', page: '2' });
  // @ts-expect-error a misspelt list parameter in the object form
  for await (const item of scoped.items({ limt: '5' })) void item;
  // @ts-expect-error a misspelt list parameter in the object form
  for await (const page of scoped.pages({ fields: 'title', Sort: 'title' })) void page;
  // An object kept in a variable has no excess keys to the types, and the nested lists' `<path>.<parameter>` keys
  // make any object a request: an object with no list parameter at all compiles, and is refused at run time.
  const typo = { fitler: "title eq 'a'" };
  await scoped.list(typo);
  // The request's own parameters, whatever their names: fromQueryString, records, URLSearchParams, strings.
  await scoped.list(fromQueryString('/books?utm_source=x&limit=5'));
  const fromFramework: Record<string, string> = { utm_source: 'x' };
  await scoped.list(fromFramework);
  await scoped.list({ ...fromFramework, limit: '5' });
  await scoped.list(new URLSearchParams('limit=5'));
  await scoped.list('limit=5&utm_source=x');
  const typed: ListParameters = { sort: 'title' };
  await scoped.list(typed);
}

void [scopes, queries];
