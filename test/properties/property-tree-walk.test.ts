/**
 * Property: a nested cursor continues one parent's list exactly, forward and backward, while rows change between
 * pages. The top level is narrowed to one book (sometimes two: the other's list must start from its beginning on
 * every page), and one list is walked by `<path>.cursor`: its reviews (1:m), its tags (m:n) or its author's books
 * (a list two levels down), with a random nested filter, sort and count and a page size that changes between pages,
 * aliased at times. Between pages related rows are inserted, deleted, re-sorted (stars, labels, titles, prices),
 * soft-deleted or moved to the other tenant, in the database and in the reference alike. Every page must be the
 * reference's page of the data as it is then: the rows after the cursor's position (forward) or the `limit` rows
 * right before it (backward), with hasMore, the cursors due and the count. The data is restored after each walk.
 */
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { Book, libraryEntities, libraryOptions, Review, Tag } from '../fixtures/library.ts';
import { eachDialect } from '../helpers/db.ts';
import { filterArb, shapeFor, sortArb } from '../oracle/arbitraries.ts';
import { budget, check, printable, SEED } from '../oracle/budget.ts';
import { bookTreeSpec, generateLibrary, loadLibrary } from '../oracle/library.ts';
import { type EntitySpec, type RelationSpec, type Row, type Visibility, visible } from '../oracle/model.ts';
import { toQueryString } from '../oracle/request.ts';
import {
  type Continuation,
  expectedItems,
  expectedPage,
  firstDifference,
  type GenLevel,
  type GenList,
  type GenSelection,
  listKey,
  listRows,
  maskCursors,
  nestedValues,
  printFields,
} from '../oracle/tree.ts';
import { describeVisibility, scopedFor, treeEngine, visibilityArb } from '../oracle/tree-engine.ts';
import { type DbModel, dbModelFor, type Value } from '../oracle/values.ts';

const LIBRARY = generateLibrary(SEED ^ 0x3e57, 60);
const WALKS = budget(30);
const TEMP_ID = 1_000_000;
const DELETED = 1577836800000;
const STARS = [null, 1, 3, 3, 5];
const TEXTS = ['Ann', 'ann', 'Bob', '', '%', 'Zed', 'Ü'];
const PRICES = [null, 0, 5, 10, 10, -1];

type Kind = 'reviews' | 'tags' | 'books';

/** One change between pages; `pick` chooses among the list's current related rows, `value` from a pool. */
interface Change {
  readonly op: 'insert' | 'delete' | 'update' | 'softDelete' | 'tenant' | 'link';
  readonly pick: number;
  readonly value: number;
}

interface WalkCase {
  readonly kind: Kind;
  readonly visibility: Visibility;
  /** Which candidate parent (the ones with the longest lists first), and a second book beside it or not. */
  readonly parent: number;
  readonly other?: number;
  readonly alias: boolean;
  readonly list: Omit<GenList, 'limit' | 'cursor' | 'offset'>;
  readonly sizes: readonly number[];
  readonly backSizes: readonly number[];
  /** The changes after each page boundary (forward, then backward), the first few boundaries only. */
  readonly steps: readonly (readonly Change[])[];
}

const relation = (entity: EntitySpec, name: string): RelationSpec => entity.relations.find((r) => r.name === name)!;
const AUTHOR = relation(bookTreeSpec, 'author');
const LISTS: Record<Kind, RelationSpec> = {
  reviews: relation(bookTreeSpec, 'reviews'),
  tags: relation(bookTreeSpec, 'tags'),
  books: relation(AUTHOR.target(), 'books'),
};
const PICKS: Record<Kind, readonly string[]> = { reviews: ['stars'], tags: ['label'], books: ['title', 'price'] };

function caseArb(db: DbModel): fc.Arbitrary<WalkCase> {
  const shape = { depth: 2, hops: 1, quantifiers: 1, ...shapeFor(db) };
  const change = fc.record({
    op: fc.constantFrom('insert', 'insert', 'delete', 'update', 'update', 'softDelete', 'tenant', 'link'),
    pick: fc.nat(40),
    value: fc.nat(40),
  });
  return fc
    .constantFrom<Kind>('reviews', 'tags', 'books')
    .chain((kind) => {
      const target = LISTS[kind].target();
      return fc.record({
        kind: fc.constant(kind),
        visibility: visibilityArb.map((v) => ({ ...v, db })),
        parent: fc.oneof(fc.nat(2), fc.nat(9)),
        other: fc.option(fc.nat(30), { nil: undefined }),
        alias: fc.boolean(),
        list: fc
          .record({
            filter: fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, filterArb(target, shape)),
            sort: fc.option(sortArb(target, 1), { freq: 3, nil: undefined }),
            count: LISTS[kind].select!.allowCount ? fc.boolean() : fc.constant(false),
          })
          .map((l) => ({
            ...(l.filter ? { filter: l.filter } : {}),
            ...(l.sort?.length ? { sort: l.sort } : {}),
            ...(l.count ? { count: true } : {}),
          })),
        sizes: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }),
        backSizes: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }),
        steps: fc.array(fc.array(change, { maxLength: 3 }), { maxLength: 6 }),
      });
    })
    .map((c) => {
      const { other, ...rest } = c;
      return printable(other === undefined ? rest : { ...rest, other }, (x) => describeCase(x));
    });
}

function describeCase(c: WalkCase): string {
  const top = topLevel(c, selectionOf(c, {}));
  const values = { fields: printFields(top), ...nestedValues(top) };
  return `${c.kind} walk, ${toQueryString(values)} sizes ${c.sizes} back ${c.backSizes} (${describeVisibility(c.visibility)}) changes ${JSON.stringify(c.steps.map((s) => s.map((x) => `${x.op}:${x.pick}:${x.value}`)))}`;
}

/** The walked list's selection with this page's limit and cursor. */
function selectionOf(c: WalkCase, page: { limit?: number; cursor?: string }): GenSelection {
  const rel = LISTS[c.kind];
  return {
    key: c.alias ? 'best' : rel.name,
    ...(c.alias ? { alias: 'best' } : {}),
    relation: rel,
    fields: PICKS[c.kind],
    selections: [],
    list: { ...c.list, ...page },
  };
}

/** The top level's picks: the book's id and the list, or the author with the list under it. */
function topLevel(c: WalkCase, sel: GenSelection): GenLevel {
  if (c.kind !== 'books') return { fields: ['id'], selections: [sel] };
  return { fields: ['id'], selections: [{ key: 'author', relation: AUTHOR, fields: ['name'], selections: [sel] }] };
}

/** The list's parent row for a top-level book: the book, or its author. */
function listParent(kind: Kind, book: Row): Row | undefined {
  return kind === 'books' ? ((book['author'] as Row | null) ?? undefined) : book;
}

/** Books whose list is walked: visible (with a visible author for `books`), the longest lists first. */
function candidates(kind: Kind, visibility: Visibility): Row[] {
  const authorSpec = AUTHOR.target();
  const sel: GenSelection = { key: 'x', relation: LISTS[kind], fields: [], selections: [] };
  return LIBRARY.books
    .filter((b) => visible(bookTreeSpec, b, visibility))
    .filter((b) => kind !== 'books' || (b['author'] && visible(authorSpec, b['author'] as Row, visibility)))
    .map((b) => ({ b, n: listRows(listParent(kind, b)!, sel, visibility).length }))
    .sort((x, y) => y.n - x.n || (x.b['id'] as number) - (y.b['id'] as number))
    .map((x) => x.b);
}

/** Changes to the database and the reference alike, and how to undo them all. */
class Mutator {
  private nextId = TEMP_ID;
  private readonly undo: (() => Promise<void>)[] = [];
  private readonly orm: MikroORM;
  private readonly kind: Kind;
  private readonly parent: Row;
  /** Rows no change may pick: the top level's books (an author's list holds them). */
  private readonly keep: ReadonlySet<Row>;

  constructor(orm: MikroORM, kind: Kind, parent: Row, keep: ReadonlySet<Row>) {
    this.orm = orm;
    this.kind = kind;
    this.parent = parent;
    this.keep = keep;
  }

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  /** The entity of the list's rows, typed as one for em's methods (Review and Book take the same calls here). */
  private entity(): typeof Book {
    return (this.kind === 'reviews' ? Review : Book) as typeof Book;
  }

  /** The related rows a change may pick from: the parent's current list, soft-deleted and other-tenant rows too. */
  private related(): Row[] {
    return (this.parent[LISTS[this.kind].property] ?? []) as Row[];
  }

  async apply(change: Change): Promise<void> {
    const rows = this.related().filter((row) => !this.keep.has(row));
    const picked = rows.length ? rows[change.pick % rows.length] : undefined;
    if (this.kind === 'tags') return this.tags(change, picked);
    const entity = this.entity();
    switch (change.op) {
      case 'insert':
      case 'link':
        return this.insert(change.value);
      case 'delete':
        // A book other rows point at is soft-deleted instead.
        if (this.kind === 'books' && picked && (picked['id'] as number) < TEMP_ID)
          return this.update(entity, picked, 'deletedAt', DELETED);
        return this.remove(picked);
      case 'update':
        if (this.kind === 'reviews') return this.update(entity, picked, 'stars', STARS[change.value % STARS.length]!);
        return change.value % 2
          ? this.update(entity, picked, 'title', TEXTS[change.value % TEXTS.length]!)
          : this.update(entity, picked, 'price', PRICES[change.value % PRICES.length]!);
      case 'softDelete':
        return this.update(entity, picked, 'deletedAt', picked?.['deletedAt'] == null ? DELETED : null);
      case 'tenant':
        return this.update(entity, picked, 'tenant', 3 - ((picked?.['tenant'] as number | undefined) ?? 1));
    }
  }

  /** Set a column of a related row (Review or Book) in both places; undone after the walk. */
  private async update(entity: typeof Book, row: Row | undefined, key: string, value: Value) {
    if (!row) return;
    const before = (row[key] ?? null) as Value;
    const write = async (v: Value) => {
      const data = { [key]: key === 'deletedAt' && v !== null ? new Date(v as number) : v };
      await this.em().nativeUpdate(entity, { id: row['id'] as number }, data as never, {
        filters: false,
      });
      row[key] = v;
    };
    await write(value);
    this.undo.push(() => write(before));
  }

  /** A new related row: a review of the book, or a book of the author (no publisher, category, tags or reviews). */
  private async insert(value: number): Promise<void> {
    const id = this.nextId++;
    const tenant = value % 5 === 0 ? 3 - (this.parent['tenant'] as number) : (this.parent['tenant'] as number);
    const deletedAt = value % 7 === 0 ? DELETED : null;
    const row: Row =
      this.kind === 'reviews'
        ? { id, tenant, book: this.parent, stars: STARS[value % STARS.length]!, deletedAt }
        : {
            id,
            tenant,
            title: TEXTS[value % TEXTS.length]!,
            price: PRICES[value % PRICES.length]!,
            author: this.parent,
            publisher: null,
            category: null,
            reviews: [],
            tags: [],
            deletedAt,
          };
    const entity = this.entity();
    await this.em().insert(entity, this.columns(row) as never);
    this.related().push(row);
    this.undo.push(async () => {
      await this.em().nativeDelete(entity, { id }, { filters: false });
      this.detach(row);
    });
  }

  /** Delete a related row (a review, or a book this walk inserted); undone by inserting it again as it was. */
  private async remove(row: Row | undefined): Promise<void> {
    if (!row) return;
    const entity = this.entity();
    await this.em().nativeDelete(entity, { id: row['id'] as number }, { filters: false });
    this.detach(row);
    this.undo.push(async () => {
      await this.em().insert(entity, this.columns(row) as never);
      this.related().push(row);
    });
  }

  /** A review's or book's columns as em.insert takes them. */
  private columns(row: Row): Record<string, unknown> {
    const deletedAt = row['deletedAt'] == null ? null : new Date(row['deletedAt'] as number);
    const common = { id: row['id'], tenant: row['tenant'], deletedAt };
    if (this.kind === 'reviews') return { ...common, book: this.parent['id'], stars: row['stars'] ?? null };
    return { ...common, title: row['title'], price: row['price'] ?? null, author: this.parent['id'] };
  }

  private detach(row: Row): void {
    const rows = this.related();
    const at = rows.indexOf(row);
    if (at >= 0) rows.splice(at, 1);
  }

  /** Tags: link or unlink a tag (the pivot row), rename it, soft-delete it. */
  private async tags(change: Change, picked: Row | undefined): Promise<void> {
    const tag = LIBRARY.tags[change.value % LIBRARY.tags.length]!;
    const c = this.em().getConnection();
    const book = this.parent['id'] as number;
    const set = async (t: Row, on: boolean) => {
      const books = t['books'] as Row[];
      if (on) {
        await c.execute('insert into lq3 (book_id, tag_id) values (?, ?)', [book, t['id']]);
        this.related().push(t);
        books.push(this.parent);
      } else {
        await c.execute('delete from lq3 where book_id = ? and tag_id = ?', [book, t['id']]);
        this.detach(t);
        books.splice(books.indexOf(this.parent), 1);
      }
    };
    const link = async (t: Row, on: boolean) => {
      await set(t, on);
      this.undo.push(() => set(t, !on));
    };
    switch (change.op) {
      case 'insert':
      case 'link':
        if (!this.related().includes(tag)) await link(tag, true);
        return;
      case 'delete':
        if (picked) await link(picked, false);
        return;
      case 'update':
        return this.tagColumn(tag, 'label', TEXTS[change.pick % TEXTS.length]!);
      default:
        return this.tagColumn(tag, 'deletedAt', tag['deletedAt'] == null ? DELETED : null);
    }
  }

  private async tagColumn(tag: Row, key: 'label' | 'deletedAt', value: Value): Promise<void> {
    const before = (tag[key] ?? null) as Value;
    const write = async (v: Value) => {
      const data = key === 'deletedAt' ? { deletedAt: v === null ? null : new Date(v as number) } : { label: v };
      await this.em().nativeUpdate(Tag, { id: tag['id'] as number }, data as never, { filters: false });
      tag[key] = v;
    };
    await write(value);
    this.undo.push(() => write(before));
  }

  /** Undo every change, last first. */
  async restore(): Promise<void> {
    for (const step of this.undo.reverse()) await step();
    this.undo.length = 0;
  }
}

/** Where the walk stands: the list's cursor and the position it holds (the row's sort key when it was read). */
interface At {
  readonly cursor: string;
  readonly key: readonly Value[];
  readonly backward: boolean;
}

eachDialect(
  'property: nested cursor walks under changing data',
  { entities: libraryEntities, seed: (em) => loadLibrary(em, LIBRARY), options: libraryOptions },
  (test, dialect) => {
    const db = dbModelFor(dialect);
    test(`${WALKS} walks forward then back over one parent's list, rows changing between pages`, async (ctx) => {
      const engine = treeEngine(ctx.db.orm);
      await check(caseArb(db), WALKS, async (c) => {
        const vis = c.visibility;
        const books = candidates(c.kind, vis);
        if (books.length === 0) return;
        const book = books[c.parent % Math.min(books.length, 10)]!;
        const other = c.other === undefined ? undefined : books[c.other % books.length];
        const tops = [...new Set([book, ...(other ? [other] : [])])].sort(
          (x, y) => (x['id'] as number) - (y['id'] as number),
        );
        const parent = listParent(c.kind, book)!;
        const mutator = new Mutator(ctx.db.orm, c.kind, parent, new Set(tops));
        const scoped = scopedFor(engine, ctx.db.orm, vis);
        const path = c.kind === 'books' ? `author.${selectionOf(c, {}).key}` : selectionOf(c, {}).key;
        let step = 0;
        const between = async () => {
          for (const change of c.steps[step++] ?? []) await mutator.apply(change);
        };
        /**
         * Read one page of the list from `at` (none: its first page), check the whole answer against the reference,
         * and return whether more rows follow and its cursors with the positions they hold as the data is now.
         */
        const page = async (limit: number, at: At | undefined, label: string) => {
          const sel = selectionOf(c, { limit, ...(at ? { cursor: at.cursor } : {}) });
          const top = topLevel(c, sel);
          const values = {
            filter: `id in (${tops.map((b) => b['id']).join(', ')})`,
            sort: 'id',
            fields: printFields(top),
            ...nestedValues(top),
          };
          const continued =
            at && new Map<string, Continuation>([[path, { parent, backward: at.backward, key: at.key }]]);
          const scope = { visibility: vis, ...(continued ? { continued } : {}) };
          const got = await scoped().list(values);
          const want = expectedItems(bookTreeSpec, tops, top, scope);
          const diff = firstDifference(maskCursors(got.items), want);
          const tag = `${label} of ${describeCase(c)}\n  request ${toQueryString(values)}`;
          assert.ok(diff === undefined, `${tag}\n  ${diff}`);
          const item = got.items.find((i) => i['id'] === book['id'])!;
          const holder = (c.kind === 'books' ? item['author'] : item) as Record<string, unknown>;
          const nested = holder[sel.key] as { page: { nextCursor?: string; prevCursor?: string; hasMore: boolean } };
          const rows = expectedPage(listRows(parent, sel, vis), sel, vis, at && { parent, ...at }).items;
          const first = rows[0];
          const last = rows.at(-1);
          return {
            hasMore: nested.page.hasMore,
            next: nested.page.nextCursor && last && { cursor: nested.page.nextCursor, key: listKey(last, sel, vis) },
            prev: nested.page.prevCursor && first && { cursor: nested.page.prevCursor, key: listKey(first, sel, vis) },
          };
        };
        try {
          let at: At | undefined;
          let back: At | undefined;
          for (let i = 0; ; i++) {
            assert.ok(i < 200, 'the forward walk does not end');
            const read = await page(c.sizes[i % c.sizes.length]!, at, `forward page ${i}`);
            if (read.prev) back = { ...read.prev, backward: true };
            if (!read.hasMore || !read.next) break;
            at = { ...read.next, backward: false };
            await between();
          }
          for (let i = 0; back; i++) {
            assert.ok(i < 200, 'the backward walk does not end');
            await between();
            const read = await page(c.backSizes[i % c.backSizes.length]!, back, `backward page ${i}`);
            back = read.hasMore && read.prev ? { ...read.prev, backward: true } : undefined;
          }
        } finally {
          await mutator.restore();
        }
      });
    });
  },
);
