/**
 * Classic Nest projects compile CommonJS with `moduleResolution: node10`, which ignores the `exports` map: the
 * subpaths (`listql/express`, `listql/nestjs`, …) get their types from `typesVersions` there. A tiny project of
 * that kind, with Nest's decorator settings, is type-checked against this package's declarations.
 *
 * The declarations are built here, by the project's own tsc, into a temporary copy of the package, so the test
 * needs no earlier `npm run build`. TypeScript 7 (this project's compiler) no longer has `node10`, so the project
 * is checked by TypeScript 5.9, the compiler such projects use, run through `npm exec` (npm's cache, else the
 * registry).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const CLASSIC_TYPESCRIPT = 'typescript@5.9.3';

/** A Nest project's settings as `nest new` writes them, with the module system of a classic project. */
const TSCONFIG = {
  compilerOptions: {
    module: 'commonjs',
    moduleResolution: 'node10',
    target: 'es2021',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    types: ['node'],
  },
  files: ['main.ts'],
};

/** The docs' controller and module, plus one line per subpath; the expect-error line fails if types were `any`. */
const MAIN = `
import { EntityManager, MikroORM } from '@mikro-orm/core';
import { Controller, Get, Module } from '@nestjs/common';
import { createEngine, type Engine, filterable, type Page, type QueryValues, schema, sortable } from 'listql';
import { listRoute as expressRoute } from 'listql/express';
import { listRoute as fastifyRoute } from 'listql/fastify';
import { listRoute as honoRoute } from 'listql/hono';
import { listRoute as koaRoute } from 'listql/koa';
import { InjectEngine, ListErrorFilter, ListQuery, ListqlModule, ListRoute, ListSignal } from 'listql/nestjs';

export class Book {
  id!: number;
  title!: string;
}
const bookPolicy = schema(Book).expose('title', filterable(), sortable());

@Controller('books')
@ListRoute()
export class BooksController {
  constructor(@InjectEngine('books') private readonly books: Engine, private readonly em: EntityManager) {}

  @Get()
  list(@ListQuery() query: QueryValues, @ListSignal() signal: AbortSignal): Promise<Page> {
    return this.books.from((this.em as any).createQueryBuilder(Book, 'b')).list(query, { signal });
  }
}

@Module({
  imports: [ListqlModule.forFeature([{ name: 'books', create: (orm: MikroORM) => createEngine(orm, { policy: bookPolicy }) }])],
  controllers: [BooksController],
})
export class BooksModule {}

// @ts-expect-error onInternalError takes a function
new ListErrorFilter({ onInternalError: 1 });
export const routes = [expressRoute, fastifyRoute, honoRoute, koaRoute];
`;

/** Type-check the project in `dir` with the classic compiler: its diagnostics, or '' when there are none. */
async function classicTsc(dir: string): Promise<string> {
  const args = ['exec', '--yes', '--prefer-offline', '--package', CLASSIC_TYPESCRIPT, '--', 'tsc', '-p', dir];
  try {
    await run('npm', args, { cwd: dir, maxBuffer: 1 << 24 });
    return '';
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    return `${stdout ?? ''}${stderr ?? ''}`.trim() || String(err);
  }
}

test('node10 + CommonJS: every subpath resolves to its types, and only through typesVersions', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'listql-node10-'));
  try {
    const pkg = join(dir, 'node_modules', 'listql');
    mkdirSync(pkg, { recursive: true });
    await run(
      join(root, 'node_modules', '.bin', 'tsc'),
      ['-p', 'tsconfig.build.json', '--outDir', join(pkg, 'dist'), '--emitDeclarationOnly', '--sourceMap', 'false'],
      { cwd: root, maxBuffer: 1 << 24 },
    );
    cpSync(join(root, 'package.json'), join(pkg, 'package.json'));
    // The app's other dependencies are this project's own.
    for (const name of readdirSync(join(root, 'node_modules')))
      if (name !== '.bin' && name !== 'listql')
        symlinkSync(join(root, 'node_modules', name), join(dir, 'node_modules', name));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    writeFileSync(join(dir, 'main.ts'), MAIN);

    assert.is(await classicTsc(dir), '');

    // Without typesVersions, node10 finds no types for the subpaths: the check above can fail.
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
    delete manifest.typesVersions;
    writeFileSync(join(pkg, 'package.json'), JSON.stringify(manifest));
    const errors = await classicTsc(dir);
    for (const subpath of ['express', 'fastify', 'hono', 'koa', 'nestjs'])
      assert.match(errors, `error TS2307: Cannot find module 'listql/${subpath}'`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('typesVersions maps every subpath of the exports map to the same declarations', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const fromExports = Object.entries(manifest.exports as Record<string, { types?: string }>)
    .filter(([subpath, target]) => subpath !== '.' && typeof target === 'object' && target.types !== undefined)
    .map(([subpath, target]) => [subpath.slice(2), [target.types]]);
  assert.equal(Object.entries(manifest.typesVersions['*']).sort(), fromExports.sort());
});

test.run();
