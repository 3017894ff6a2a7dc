/**
 * Fuzzing through list() against real databases, with the drivers recorded (test/helpers/capture.ts):
 * - a rejected request (any ListError a client can cause) reaches the database with zero statements;
 * - a cursor forged with the right signature and shape but arbitrary keys (edge values, one-character changes,
 *   out-of-range numbers) is accepted or refused before any query, never a failure in the database;
 * - no fuzzed input ever causes execution_failed, invalid_schema or a non-ListError;
 * - generated literals (every kind, in every spelling) never appear in the SQL text, only among the bound values,
 *   both through list() and through apply() + execute().
 * - nested selections (the library's tree policy): random and mutated `fields`, path-named parameters with real and
 *   made-up keys and any value, bounds crossed, real nested cursors moved to other lists: each answer is a page or a
 *   client ListError (400) naming its parameter, with a position inside the value when it has one, and a refused
 *   request runs zero statements, with unknown parameters ignored or rejected.
 */
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { execute } from '../../src/engine/execute.ts';
import { createEngine } from '../../src/engine/index.ts';
import { ERROR_STATUS, isListError } from '../../src/errors.ts';
import { apply } from '../../src/plan/index.ts';
import { parseHTTP } from '../../src/syntax/index.ts';
import { catalogEntities, Product } from '../fixtures/catalog.ts';
import { Book, libraryEntities } from '../fixtures/library.ts';
import { captureDriver, type DriverCall } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { filterArb, shapeFor, spacingArb } from '../oracle/arbitraries.ts';
import { budget, check, SEED } from '../oracle/budget.ts';
import { generateProducts, loadProducts, productPolicy, productSpec } from '../oracle/catalog.ts';
import { type GenFilter, type GenLiteral, printFilter } from '../oracle/filter.ts';
import { cursorArb, forgedCursorArb, limitFilterArb, mutationArb, rawQueryArb, scalarArb } from '../oracle/fuzz.ts';
import { bookTreePolicy, bookTreeSpec, generateLibrary, loadLibrary } from '../oracle/library.ts';
import { treeRequestArb } from '../oracle/tree-arbitraries.ts';
import { nestedFuzzArb } from '../oracle/tree-fuzz.ts';
import { dbModelFor } from '../oracle/values.ts';

const ROWS = generateProducts(SEED, 60);
const REJECTS = budget(400);
const LITERALS = budget(300);
const FORGED = budget(400);
const NESTED = budget(300);
const LIBRARY = generateLibrary(SEED ^ 0xf022, 40);
const encoder = new TextEncoder();

const validFilter = fc
  .tuple(filterArb(productSpec, { depth: 3, hops: 0, quantifiers: 0 }), spacingArb)
  .map(([f, s]) => printFilter(f, s));

const requestArb: fc.Arbitrary<string | Record<string, string>> = fc.oneof(
  rawQueryArb,
  mutationArb(validFilter).map((filter) => ({ filter })),
  limitFilterArb.map((filter) => ({ filter })),
  cursorArb.map((cursor) => ({ cursor, sort: '-price' })),
  fc.tuple(fc.constantFrom('limit', 'offset', 'count', 'search'), scalarArb).map(([k, v]) => ({ [k]: v })),
);

function literalsOf(filter: GenFilter): GenLiteral[] {
  switch (filter.kind) {
    case 'cmp':
      return [filter.literal];
    case 'in':
      return [...filter.literals];
    case 'null':
    case 'relNull':
      return [];
    case 'not':
      return literalsOf(filter.operand);
    case 'and':
    case 'or':
      return [...literalsOf(filter.left), ...literalsOf(filter.right)];
    case 'quant':
      return literalsOf(filter.predicate);
    case 'count':
      return filter.inner ? literalsOf(filter.inner.predicate) : [];
    default: {
      const never: never = filter;
      throw new Error(`unknown node ${String(never)}`);
    }
  }
}

/** The pieces of a literal that would betray it in SQL text: long string values and long number spellings. */
function telltales(literal: GenLiteral): string[] {
  if (typeof literal.value === 'string') return literal.value.length >= 5 ? [literal.value] : [];
  return literal.text.length >= 6 ? [literal.text] : [];
}

function sqlOf(calls: readonly DriverCall[]): string {
  return calls.map((c) => c.sql).join('\n');
}

eachDialect(
  'fuzz through the database',
  { entities: catalogEntities, seed: (em) => loadProducts(em, ROWS) },
  (test, dialect) => {
    test(`${REJECTS} fuzzed requests: rejected ones run zero statements, none fails server-side`, async ({ db }) => {
      const engine = createEngine(db.orm, { policy: productPolicy, allowCount: true });
      await check(requestArb, REJECTS, async (query) => {
        const scoped = engine.from((db.orm.em.fork() as any).createQueryBuilder(Product, 'p'));
        const { result, calls } = await captureDriver(() =>
          scoped.list(query as never).then(
            () => undefined,
            (err: unknown) => err,
          ),
        );
        if (result === undefined) return;
        assert.ok(isListError(result), `non-ListError ${String(result)} for ${JSON.stringify(query)}`);
        assert.ok(ERROR_STATUS[result.code] === 400, `${result.code} for ${JSON.stringify(query)}`);
        assert.equal(calls, [], `${result.code}: statements ran for ${JSON.stringify(query)}`);
      });
    });

    test(`${FORGED} forged cursor keys: accepted, or invalid_cursor with zero statements`, async ({ db }) => {
      const engine = createEngine(db.orm, { policy: productPolicy });
      const scoped = () => engine.from((db.orm.em.fork() as any).createQueryBuilder(Product, 'p'));
      const sorts = productSpec.fields.flatMap((f) => [f.name, `-${f.name}`]);
      const valid = new Map<string, string>();
      for (const sort of sorts) valid.set(sort, (await scoped().list({ sort, limit: '7' })).page.nextCursor!);
      const arb = fc
        .constantFrom(...sorts)
        .chain((sort) => forgedCursorArb(valid.get(sort)!).map((cursor) => ({ sort, cursor, limit: '3' })));
      await check(arb, FORGED, async (query) => {
        const { result, calls } = await captureDriver(() =>
          scoped()
            .list(query)
            .then(
              () => undefined,
              (err: unknown) => err,
            ),
        );
        if (result === undefined) return;
        assert.ok(isListError(result), `non-ListError ${String(result)} for ${JSON.stringify(query)}`);
        assert.is(result.code, 'invalid_cursor', `${result.code} (${result.message}) for ${JSON.stringify(query)}`);
        assert.equal(calls, [], `statements ran for ${JSON.stringify(query)}`);
      });
    });

    test(`${LITERALS} generated filters: no literal appears in the SQL text`, async ({ db }) => {
      const engine = createEngine(db.orm, { policy: productPolicy, allowCount: true });
      const bound = productPolicy.bind(db.orm);
      const base = () => (db.orm.em.fork() as any).createQueryBuilder(Product, 'p');
      // Words the SQL holds anyway: the statement without a filter, and every column name from metadata.
      const columns = db.orm
        .getMetadata()
        .get(Product)
        .props.flatMap((p) => p.fieldNames ?? []);
      const baseline = `${sqlOf((await captureDriver(() => execute(base()))).calls)} ${columns.join(' ')}`;
      const arb = fc.tuple(
        filterArb(productSpec, { depth: 3, hops: 0, quantifiers: 0, ...shapeFor(dbModelFor(dialect)) }),
        spacingArb,
      );
      await check(arb, LITERALS, async ([filter, spacing]) => {
        const values = { filter: printFilter(filter, spacing), count: 'true' };
        const { calls } = await captureDriver(async () => {
          await engine.from(base()).list(values);
          await execute(apply(base(), bound, parseHTTP({ filter: values.filter })));
        });
        const sql = sqlOf(calls);
        for (const literal of literalsOf(filter))
          for (const t of telltales(literal))
            if (!baseline.includes(t)) assert.not.ok(sql.includes(t), `literal ${t} in SQL: ${sql.slice(0, 400)}`);
      });
    });
  },
);

eachDialect(
  'fuzz through the database: nested selections',
  { entities: libraryEntities, seed: (em) => loadLibrary(em, LIBRARY) },
  (test, dialect) => {
    test(`${NESTED} fuzzed nested requests: a page, or a located client error and zero statements`, async ({ db }) => {
      // The default budget (maxTreeRows, sub-queries) refuses some trees: before any statement, like every refusal.
      const engines = [
        createEngine(db.orm, { policy: bookTreePolicy, allowCount: true, limits: { maxSelectionDepth: 4 } }),
        createEngine(db.orm, {
          policy: bookTreePolicy,
          allowCount: true,
          limits: { maxSelectionDepth: 4 },
          unknownParameters: 'reject',
        }),
      ];
      const scoped = (i: number) =>
        engines[i % 2]!.from((db.orm.em.fork() as any).createQueryBuilder(Book, 'b'), { filters: false });
      // Real nested cursors: of reviews (two sorts), tags and the authors' books, each naming its own parent.
      const cursors: string[] = [];
      for (const values of [
        { fields: 'id,reviews(stars)', 'reviews.limit': '1' },
        { fields: 'id,reviews(stars)', 'reviews.limit': '1', 'reviews.sort': 'id' },
        { fields: 'id,tags(label)', 'tags.limit': '1' },
        { fields: 'id,author(books(title))', 'author.books.limit': '1' },
      ]) {
        const page = await scoped(0).list({ ...values, limit: '5' });
        JSON.stringify(page, (key, value) => {
          if ((key === 'nextCursor' || key === 'prevCursor') && typeof value === 'string') cursors.push(value);
          return value;
        });
      }
      assert.ok(cursors.length >= 8, `only ${cursors.length} nested cursors to move around`);
      const shape = { depth: 2, hops: 1, quantifiers: 1, ...shapeFor(dbModelFor(dialect)) };
      const reviewSpec = bookTreeSpec.relations.find((r) => r.name === 'reviews')!.target();
      const filters = fc.tuple(filterArb(reviewSpec, shape), spacingArb).map(([f, sp]) => printFilter(f, sp));
      const trees = treeRequestArb(bookTreeSpec, shape, { depth: 3, width: 2, filter: shape, sortHops: 1 }, 5);
      const arb = fc.tuple(nestedFuzzArb(trees, filters, cursors), fc.nat(1));
      await check(arb, NESTED, async ([values, engine]) => {
        const shown = JSON.stringify(values);
        const { result, calls } = await captureDriver(() =>
          scoped(engine)
            .list(values)
            .then(
              (page) => page,
              (err: unknown) => err,
            ),
        );
        if (!isListError(result)) {
          assert.ok(Array.isArray((result as { items?: unknown }).items), `neither a page nor a ListError: ${shown}`);
          return;
        }
        assert.is(ERROR_STATUS[result.code], 400, `${result.code} (${result.message}) for ${shown}`);
        assert.equal(calls, [], `${result.code}: statements ran for ${shown}`);
        assert.type(result.parameter, 'string', `${result.code} (${result.message}) names no parameter: ${shown}`);
        const parameter = result.parameter!;
        assert.ok(
          parameter in values || parameter === 'fields',
          `${result.code} names ${parameter}, which the request does not give: ${shown}`,
        );
        if (result.position) {
          const value = values[parameter] ?? '';
          assert.ok(
            result.position.offset <= encoder.encode(value).length,
            `${result.code} at ${result.position.offset}, past the end of ${parameter}: ${shown}`,
          );
        }
      });
    });
  },
);
