/**
 * `npm run api:report` / `npm run api:check`: the public API, one report per entry point of package.json "exports"
 * (`api/listql.api.md`, `api/listql-express.api.md`, …), written by API Extractor from the .d.ts that
 * `npm run build` emits into dist/. Each report lists every exported name with its full declaration and the
 * declarations of the types those names reach, so any change to the public API or its types shows as a diff.
 *
 * API Extractor reads declaration files with the TypeScript it bundles (6.x): the project compiles with
 * TypeScript 7, whose .d.ts output it reads as ordinary declarations. The reports hold no dates and no paths.
 *
 * `--check` writes nothing in the tree and exits non-zero, printing the difference, when a committed report no
 * longer matches dist/ (CI runs it after the build). Run `npm run build && npm run api:report` to accept a change.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diff } from 'node:util';
import { Extractor, ExtractorConfig, ExtractorLogLevel, type IConfigFile } from '@microsoft/api-extractor';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the committed reports live, relative to the repository root. */
export const REPORT_FOLDER = 'api';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, string | { types?: string }>;
};

/** One entry point: its report name (`listql-express`), its import path and its declaration file in dist/. */
interface Entry {
  readonly report: string;
  readonly specifier: string;
  readonly dts: string;
}

/** List the entry points of the exports map that carry types: `.` and every subpath (not `./package.json`). */
export function entries(): Entry[] {
  return Object.entries(pkg.exports).flatMap(([subpath, target]) => {
    const types = typeof target === 'string' ? undefined : target.types;
    if (types === undefined) return [];
    const tail = subpath.replace(/^\.\/?/, '');
    return [
      {
        report: tail === '' ? pkg.name : `${pkg.name}-${tail.replace(/\//g, '-')}`,
        specifier: tail === '' ? pkg.name : `${pkg.name}/${tail}`,
        dts: join(ROOT, types),
      },
    ];
  });
}

/** Build API Extractor's configuration for one entry point, its temporary report going to `tempFolder`. */
function configFor(entry: Entry, tempFolder: string): IConfigFile {
  return {
    projectFolder: ROOT,
    mainEntryPointFilePath: entry.dts,
    compiler: {
      // Only the declarations in dist/ are read; TypeScript 6 resolves their `./x.ts` imports to `./x.d.ts`.
      overrideTsconfig: {
        compilerOptions: {
          target: 'es2023',
          lib: ['es2023'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          types: ['node'],
          strict: true,
          skipLibCheck: true,
          allowImportingTsExtensions: true,
          noEmit: true,
        },
        files: [entry.dts],
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: entry.report,
      reportFolder: join(ROOT, REPORT_FOLDER),
      reportTempFolder: tempFolder,
      // Types reached from the public API but not exported by name are part of what users see: report them too.
      includeForgottenExports: true,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    newlineKind: 'lf',
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
      // listql marks no release stages (@public, @beta): everything exported is public.
      extractorMessageReporting: {
        // Findings print to the console; in the report they would carry file paths and lines that moves change.
        default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: false },
        'ae-undocumented': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
        'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
        // Unexported types the API reaches are reported in full (includeForgottenExports), without `export`.
        'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
      },
      // The JSDoc is written for readers, not for TSDoc's grammar; the report carries no comments anyway.
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None, addToApiReportFile: false } },
    },
  };
}

/** Print the lines that differ between the committed report and the current one, with two lines of context. */
function printDiff(name: string, committed: string, current: string): void {
  console.error(`\n${REPORT_FOLDER}/${name} differs from dist/ (- committed, + current):`);
  // util.diff(actual, expected) marks lines only in `actual` with 1, only in `expected` with -1.
  const lines = diff(current.split('\n'), committed.split('\n'));
  const near = (i: number) => lines.slice(Math.max(0, i - 2), i + 3).some(([op]) => op !== 0);
  let skipped = false;
  lines.forEach(([op, line], i) => {
    if (!near(i)) {
      if (!skipped) console.error('  …');
      skipped = true;
      return;
    }
    skipped = false;
    console.error(`${op === 1 ? '+' : op === -1 ? '-' : ' '} ${line}`);
  });
}

/**
 * Drop the lines that follow the JSDoc rather than the API: `// (undocumented)` (adding a comment is no API
 * change) and `// @public` (listql marks no release stages). Name the import path in the heading.
 */
function normalize(report: string, entry: Entry): string {
  return report
    .replace(`## API Report File for "${pkg.name}"`, `## API Report File for "${entry.specifier}"`)
    .split('\n')
    .filter(
      (line) =>
        !/^\s*\/\/ (\(undocumented\)|@public|\(No @packageDocumentation comment for this package\))$/.test(line),
    )
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
}

/** Write (`check` false) or compare (`check` true) every report; return the names of those that differ. */
export function run(check: boolean): string[] {
  const temp = mkdtempSync(join(tmpdir(), 'listql-api-'));
  const changed: string[] = [];
  if (!check) mkdirSync(join(ROOT, REPORT_FOLDER), { recursive: true });
  try {
    for (const entry of entries()) {
      if (!existsSync(entry.dts)) throw new Error(`${entry.dts} is missing: run \`npm run build\` first`);
      const config = ExtractorConfig.prepare({
        configObject: configFor(entry, temp),
        configObjectFullPath: undefined,
        packageJsonFullPath: join(ROOT, 'package.json'),
      });
      // Never a "local build": API Extractor only writes the temporary report; this script compares and copies.
      const result = Extractor.invoke(config, { localBuild: false, messageCallback: quiet });
      if (result.errorCount > 0) throw new Error(`API Extractor failed on ${entry.specifier}`);
      const name = `${entry.report}.api.md`;
      const committedPath = join(ROOT, REPORT_FOLDER, name);
      const committed = existsSync(committedPath) ? readFileSync(committedPath, 'utf8') : '';
      const current = normalize(readFileSync(join(temp, name), 'utf8'), entry);
      if (committed === current) continue;
      changed.push(name);
      if (check) printDiff(name, committed, current);
      else writeFileSync(committedPath, current);
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return changed;
}

/** Keep API Extractor's progress and report-file notices out of the output; warnings and errors still print. */
function quiet(message: { logLevel: ExtractorLogLevel; handled: boolean; messageId: string }): void {
  const info = message.logLevel === ExtractorLogLevel.Info || message.logLevel === ExtractorLogLevel.Verbose;
  if (info || message.messageId.startsWith('console-api-report-')) message.handled = true;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv.includes('--check');
  const changed = run(check);
  if (check && changed.length > 0) {
    console.error(
      `\nThe public API changed (${changed.join(', ')}). If that is deliberate: npm run build && npm run api:report`,
    );
    process.exit(1);
  }
  console.log(
    check
      ? `${REPORT_FOLDER}/ matches the public API (${entries().length} entry points)`
      : `${REPORT_FOLDER}/: ${changed.length === 0 ? 'unchanged' : `updated ${changed.join(', ')}`}`,
  );
}
