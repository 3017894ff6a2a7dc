/**
 * Type fixture of policies (`npm run typecheck`; never run): each `@ts-expect-error` line must fail to compile,
 * each other line must compile. Covers EntitySchema with and without a class, defineEntity and a decorated class.
 */
import type { Ref } from '@mikro-orm/core';
import {
  filterable,
  type Policy,
  type RelationKey,
  type ScalarKey,
  schema,
  selectable,
  sortable,
} from '../../src/index.ts';
import { Invoice } from './decorated.ts';
import { Article, Author, LabelSchema, LooseSchema, Project, Tag, Task, User, UserSchema } from './entities.ts';

const users = schema(User).expose('id', sortable()).expose('name', filterable('eq', 'contains'), sortable());
const projects = schema(Project).expose('title', filterable());
const tags = schema(Tag).expose('label', filterable('eq'));

// expose: the entity's non-hidden scalar properties, by public name.
schema(Task).expose('title', filterable('eq', 'contains', 'startswith', 'endswith', 'gt'), sortable(), selectable());
schema(Task).expose('code', filterable('eq'));
schema(Task).expose('estimate', filterable('gt', 'lte', 'in', 'null'));
schema(Task).expose('views', filterable('gte'), sortable());
schema(Task).expose('dueOn', filterable('lt', 'null'));
schema(Task).expose('done', filterable('eq', 'ne', 'in', 'nin', 'null'), filterable());
// @ts-expect-error not a property of Task
schema(Task).expose('doesNotExist');
// @ts-expect-error serialized as `code` (declared with [PublicNames]): exposed under that name only
schema(Task).expose('sku');
// @ts-expect-error hidden by [HiddenProps]
schema(Task).expose('internalNote');
// @ts-expect-error a relation: use relation()
schema(Task).expose('assignee');
// @ts-expect-error a collection: use relation()
schema(Task).expose('tags');
// @ts-expect-error an array property: bind refuses arrays too
schema(Task).expose('labels');
// @ts-expect-error a method is not a property
schema(Task).expose('describe');
// @ts-expect-error hidden by the Hidden<…> brand
schema(User).expose('password');

// operators: constrained by the property's TypeScript type.
// @ts-expect-error no text operator on a number
schema(Task).expose('estimate', filterable('contains'));
// @ts-expect-error no text operator on a bigint
schema(Task).expose('views', filterable('startswith'));
// @ts-expect-error no text operator on a date
schema(Task).expose('dueOn', filterable('endswith'));
// @ts-expect-error no case-insensitive operator on a number
schema(Task).expose('estimate', filterable('ieq'));
schema(Task).expose('title', filterable('eq', 'ieq', 'ine', 'icontains', 'istartswith', 'iendswith'));
// @ts-expect-error no ordering operator on a boolean
schema(Task).expose('done', filterable('gt'));
// @ts-expect-error no text operator on a boolean either
schema(User).expose('active', sortable(), filterable('eq', 'contains'));
// @ts-expect-error not an operator at all
schema(Task).expose('title', filterable('like'));

// relation: only relation properties, with the nested policy (or thunk) of the target entity.
schema(Task)
  .relation('assignee', users)
  .relation('project', projects)
  .relation('tags', () => tags);
schema(Task).relation('owner', users, { property: 'assignee' });
schema(Project).relation('owner', () => users);
// @ts-expect-error assignee targets User, not Project
schema(Task).relation('assignee', schema(Project));
// @ts-expect-error the thunk's policy is for Project, not User
schema(Task).relation('assignee', () => projects);
// @ts-expect-error a scalar property: use expose()
schema(Task).relation('title', users);
// @ts-expect-error not a property of Task
schema(Task).relation('reviewer', users);
// @ts-expect-error the override names a relation of Task, and its target decides the nested policy
schema(Task).relation('owner', users, { property: 'project' });
// @ts-expect-error the override must name a relation property
schema(Task).relation('owner', users, { property: 'title' });

// relation names complete: the union of Task's relation properties.
const relationNames: RelationKey<Task>[] = ['assignee', 'project', 'tags'];
// @ts-expect-error scalars are not relation names
const notRelation: RelationKey<Task> = 'title';
const scalarNames: ScalarKey<Task>[] = ['id', 'title', 'sku', 'done', 'estimate', 'views', 'dueOn'];
// @ts-expect-error a hidden property is not exposable
const hiddenScalar: ScalarKey<Task> = 'internalNote';

// EntitySchema of a class infers the class; of an interface, the interface.
const userPolicy: Policy<User> = schema(UserSchema).expose('email', filterable('eq', 'null'));
schema(LabelSchema).expose('text', filterable('contains')).expose('weight', filterable('gt'));
// @ts-expect-error no text operator on a number (interface entity)
schema(LabelSchema).expose('weight', filterable('contains'));
// @ts-expect-error not a property of Label
schema(LabelSchema).expose('colour');
// @ts-expect-error a policy of User is not a policy of Label
const mixed: Policy<User> = schema(LabelSchema);

// An EntitySchema without class or type argument says nothing: every name and operator compiles (bind decides).
schema(LooseSchema).expose('anything', filterable('contains')).relation('whatever', users);

// defineEntity: the inferred entity type.
const authors = schema(Author).expose('name', filterable('contains')).expose('born', filterable('gte', 'null'));
schema(Article)
  .expose('words', filterable('gt'))
  .relation('author', authors)
  .relation('editor', () => authors);
// @ts-expect-error hidden with .hidden()
schema(Author).expose('secret');
// @ts-expect-error no text operator on an integer (defineEntity)
schema(Article).expose('words', filterable('contains'));
// @ts-expect-error no ordering operator on a boolean (defineEntity)
schema(Author).expose('verified', filterable('lte'));
// @ts-expect-error author targets Author, not Article
schema(Article).relation('author', schema(Article));
// @ts-expect-error a scalar of a defineEntity entity is not a relation
schema(Article).relation('headline', authors);

// A decorated class.
schema(Invoice).expose('total', filterable('gt', 'contains')).expose('issuedAt', filterable('gte'), sortable());
schema(Invoice).relation('customer', users);
// @ts-expect-error no ordering operator on a boolean (decorated class)
schema(Invoice).expose('paid', filterable('gt'));
// @ts-expect-error customer targets User, not Project
schema(Invoice).relation('customer', projects);

// `Policy` without type arguments still names any policy.
const anyPolicies: Policy[] = [users, projects, authors, schema(Invoice)];

export { anyPolicies, hiddenScalar, mixed, notRelation, relationNames, scalarNames, userPolicy };

// Entity classes are compared structurally: a policy of an entity whose properties are a subset of the target's
// (every other property optional) is still refused.
class Slim {
  id!: number;
  title!: string;
}
class Wide {
  id!: number;
  title!: string;
  note?: string;
}
class Holder {
  id!: number;
  wide!: Ref<Wide>;
}
schema(Holder).relation('wide', schema(Wide));
// @ts-expect-error Slim is not Wide, though assignable to it
schema(Holder).relation('wide', schema(Slim));

// aggregates: the field lists name fields the nested policy exposes; a to-many relation of User (tasks).
const taskStats = schema(Task).expose('id', sortable()).expose('estimate', filterable(), sortable());
schema(User).relation('tasks', taskStats, { aggregates: { count: true, avg: ['estimate'], max: ['id'] } });
schema(User).relation('tasks', taskStats, { aggregates: { count: true }, select: { maxLimit: 5 } });
// @ts-expect-error 'title' is not exposed by the nested policy
schema(User).relation('tasks', taskStats, { aggregates: { sum: ['title'] } });
// @ts-expect-error an unknown option
schema(User).relation('tasks', taskStats, { aggregates: { count: true }, counts: true });
