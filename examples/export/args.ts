/**
 * The export script's command line: read with `node:util` parseArgs, after one fix-up. parseArgs refuses
 * `--sort -year` (a value that starts with a dash might be a forgotten option), yet a descending sort starts with a
 * dash: a value-taking option followed by anything but another `--option` takes it as its value.
 */
import { parseArgs } from 'node:util';
import { parseTenant } from '../bookstore/tenants.ts';

/** The largest page size `items()` accepts. */
const MAX_PAGE_SIZE = 10_000;

/** What `--help` prints, and what follows every argument error. */
export const USAGE = `Usage: npm run export -- [options]

Export every book of one tenant that matches a filter, walking cursors page by page.

  --filter <expr>     a filter in the request language, e.g. "year lt 1970"
  --sort <keys>       sort keys, e.g. -year or year,-price (a leading - sorts descending)
  --search <term>     only books whose title contains the term, ignoring case
  --fields <list>     what each book carries, related objects too, e.g. "title,author(name),reviews(stars)"
  --nested <p=v>      a parameter of a nested list, e.g. reviews.limit=5 or "reviews.sort=-stars"; repeatable
  --tenant <id>       the tenant whose books to export: 1 or 2 (default 1)
  --csv               write CSV (always with a header line) instead of NDJSON; a related object's fields
                      become columns such as author.name, and a nested list (reviews(…)) is refused
  --out <file>        write to this file instead of stdout; its folder must exist
  --page-size <n>     rows per query, 1 to ${MAX_PAGE_SIZE} (default: items()' own, 5000, or 1000 with nested
                      selections)
  -h, --help          print this help and exit`;

/** The export's options, checked. */
export interface ExportOptions {
  readonly filter?: string;
  readonly sort?: string;
  readonly search?: string;
  /** `fields`, nested selections included. */
  readonly fields?: string;
  /** Path-named parameters of nested lists (`reviews.limit` → `5`), in the order given. */
  readonly nested: readonly (readonly [name: string, value: string])[];
  readonly tenant: number;
  readonly csv: boolean;
  readonly out?: string;
  readonly pageSize?: number;
  readonly help: boolean;
}

/** A command line the export cannot run: the message is one line, meant for the user. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const OPTIONS = {
  filter: { type: 'string' },
  sort: { type: 'string' },
  search: { type: 'string' },
  fields: { type: 'string' },
  nested: { type: 'string', multiple: true },
  tenant: { type: 'string', default: '1' },
  csv: { type: 'boolean', default: false },
  out: { type: 'string' },
  'page-size': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Read and check the export's arguments, throwing a UsageError for anything it cannot run. */
export function parseExportArgs(argv: readonly string[]): ExportOptions {
  const args = attachValues(argv);
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(args));
  } catch (err) {
    // Node's messages go on to explain `--`; the first sentence says what is wrong.
    throw new UsageError((err as Error).message.split('. ')[0] ?? 'invalid arguments');
  }
  const tenant = parseTenant(values.tenant);
  if (tenant === undefined) throw new UsageError(`--tenant must be 1 or 2, got '${values.tenant}'`);
  const pageSize = values['page-size'];
  if (pageSize !== undefined && (!/^[1-9][0-9]{0,4}$/.test(pageSize) || Number(pageSize) > MAX_PAGE_SIZE))
    throw new UsageError(`--page-size must be a whole number from 1 to ${MAX_PAGE_SIZE}, got '${pageSize}'`);
  return {
    ...(values.filter !== undefined ? { filter: values.filter } : {}),
    ...(values.fields !== undefined ? { fields: values.fields } : {}),
    nested: (values.nested ?? []).map(nestedParameter),
    ...(values.sort !== undefined ? { sort: values.sort } : {}),
    ...(values.search !== undefined ? { search: values.search } : {}),
    ...(values.out !== undefined ? { out: values.out } : {}),
    tenant,
    csv: values.csv,
    ...(pageSize !== undefined ? { pageSize: Number(pageSize) } : {}),
    help: values.help,
  };
}

/** A nested list parameter is named after its path; listql checks the path and the value, this only the form. */
const NESTED =
  /^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\.(?:filter|sort|limit|offset|cursor|count))=(.*)$/s;

function nestedParameter(text: string): [string, string] {
  const match = NESTED.exec(text);
  if (!match) throw new UsageError(`--nested must be <path>.<parameter>=<value>, e.g. reviews.limit=5, got '${text}'`);
  return [match[1]!, match[2]!];
}

function parse(args: string[]) {
  return parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false });
}

/** Turn `--sort -year` into `--sort=-year` for every value-taking option; `--out --csv` is a missing value. */
function attachValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (OPTIONS[token.slice(2) as keyof typeof OPTIONS]?.type !== 'string' || !token.startsWith('--')) {
      out.push(token);
      continue;
    }
    const next = argv[++i];
    if (next === undefined || next.startsWith('--')) throw new UsageError(`${token} needs a value`);
    out.push(`${token}=${next}`);
  }
  return out;
}
