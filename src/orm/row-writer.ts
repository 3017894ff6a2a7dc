import {
  type EntityManager,
  type EntityMetadata,
  type EntityProperty,
  EventType,
  Platform,
  ReferenceKind,
} from '@mikro-orm/core';
import { setBounded } from '../bounded-map.ts';
import { dialectFor } from '../dialect/index.ts';
import { utcDateText, zonedDateText } from './date-text.ts';
import { collectFields, type Field, MISS, needsHydration, type Row, stepOf } from './item-writer.ts';
import { generatedWriter, interpretedWriter, type LayoutStep, type PageWriter } from './row-code.ts';

/**
 * Writes list items straight from the driver's rows (column names, driver values: what `qb.execute('all', false)`
 * returns), giving what MikroORM's result mapper (`execute('all')`) followed by the item writer gives: the mapper's
 * conversions (column to property names, booleans from 0/1, dates parsed once from the driver's text or number,
 * composite foreign keys gathered into arrays) are folded into the writer's own pass, so a row is read once.
 *
 * Rows of one statement have the same columns, so the work is planned per layout (which of the entity's columns a
 * page's rows carry), from the first row, and a layout whose rows the mapper would treat otherwise (a column named
 * like a property it does not fill, a column of a collection) is left to the mapped path. Per layout the row loop is
 * generated as code where the runtime allows it (metadata names only, never a value), else interpreted.
 *
 * Checked against MikroORM 7.2.1 (the development pin), 7.2.2 with SQLite and 7.2.5 with PostgreSQL (`npm run
 * compat`). When a version differs: each layout's first page is compared with serialize() of the mapped rows
 * (writer-check.ts), and a layout that disagrees is mapped by MikroORM and written as before, for good.
 */
export interface RowWriter {
  /** The writer of rows with `row`'s columns (its `key` names the layout), or undefined: map such rows first. */
  layout(row: Row): RowLayout | undefined;
  /** The writer of rows read as arrays of these columns (a repeated name: its last one), or undefined: make objects. */
  arrayLayout?(columns: readonly string[]): RowLayout | undefined;
}

/** The items of pages of one layout; `undefined` for a page holding something only the mapped path can answer. */
export interface RowLayout {
  readonly key: string;
  readonly write: PageWriter;
}

/** One field of the entity as driver rows hold it: its columns and the result mapper's conversion. */
interface ColumnField {
  readonly field: Field;
  readonly columns: readonly string[];
  /** A composite foreign key: its columns in the order of the target's primary key, as the mapper builds the array. */
  readonly composite: readonly string[] | undefined;
  readonly pre: LayoutStep['pre'];
}

// size: the two kinds of layouts (rows as objects, rows as arrays) share the entity's fields, checks and compile.
/**
 * Compile the row writer of an entity, or undefined where the item writer needs hydration (compileItemWriter()).
 * `generate: false` interprets every layout (what a runtime without code generation gets; tests compare both).
 */
export function compileRowWriter(
  em: EntityManager,
  meta: EntityMetadata,
  options: { readonly generate?: boolean } = {},
): RowWriter | undefined {
  if (needsHydration(em, meta)) return undefined;
  const platform = em.getPlatform();
  const collected = collectFields(meta, platform);
  if (!collected) return undefined;
  const { fields, absent, related } = collected;
  const columns = fields.map((f) => columnField(f, platform));
  if (columns.some((c) => c === undefined)) return undefined;
  const read = columns as ColumnField[];
  const forbidden = forbiddenColumns(meta, read, absent);
  const layouts = new Map<string, RowLayout | null>();
  const arrayLayouts = new Map<string, RowLayout | null>();
  const generate = options.generate !== false;

  // `at`: rows are arrays, each column at its position there.
  const compile = (present: readonly ColumnField[], at?: ReadonlyMap<string, number>): RowLayout | null => {
    const steps = present.map((c) => layoutStep(c, platform, at));
    const pks = meta.primaryKeys.map((pk) => present.findIndex((c) => c.field.name === pk));
    // em.map() refuses a row without its primary key: such rows are hydration's to refuse.
    if (pks.some((i) => i < 0)) return null;
    const write = (generate && generatedWriter(steps, pks, MISS)) || interpretedWriter(steps, pks, MISS);
    const key = present.map((c) => c.field.name).join(',');
    return { key: at ? `${key}@${steps.map((s) => s.at!.column).join(',')}` : key, write: guarded(write) };
  };
  // onInit hooks and subscribers see (and may change) hydrated entities; only hydration can honour them.
  const guarded = (write: PageWriter): PageWriter => {
    const events = em.getEventManager();
    return (rows) => {
      for (const m of related) if (events.hasListeners(EventType.onInit, m)) return undefined;
      return write(rows);
    };
  };

  return {
    layout(row) {
      for (const name in row) if (forbidden.has(name)) return undefined;
      let key = '';
      for (const c of read) key += presence(row, c.columns);
      let layout = layouts.get(key);
      if (layout === undefined) {
        layout = key.includes('~') ? null : compile(read.filter((_, i) => key[i] === '1'));
        layouts.set(key, layout);
      }
      return layout ?? undefined;
    },
    arrayLayout(columns) {
      const key = columns.join('\u0000');
      let layout = arrayLayouts.get(key);
      if (layout === undefined) {
        const at = new Map(columns.map((name, i) => [name, i]));
        const present = read.map((c) => presence(at, c.columns)).join('');
        const refused = present.includes('~') || columns.some((name) => forbidden.has(name));
        const fields = read.filter((_, i) => present[i] === '1');
        layout = refused ? null : compile(fields, at);
        // The engine's own statements' column lists: few, the oldest forgotten past 64.
        setBounded(arrayLayouts, key, layout, 64);
      }
      return layout ?? undefined;
    },
  };
}

/**
 * Map driver rows as `qb.execute('all')` maps those of a builder without joined entities (the result mapper: property
 * names, booleans, dates, composite keys; other columns passed through as they are).
 */
export function mapDriverRows(em: EntityManager, meta: EntityMetadata, rows: readonly Row[]): Row[] {
  const driver = em.getDriver();
  return rows.map((row) => driver.mapResult(row, meta) as Row);
}

/** '1': every column of the field is in the row; '0': none is; '~': some are (the mapper would pass them through). */
function presence(row: Row | ReadonlyMap<string, number>, columns: readonly string[]): string {
  let seen = 0;
  for (const c of columns) if (row instanceof Map ? row.has(c) : c in row) seen++;
  return seen === 0 ? '0' : seen === columns.length ? '1' : '~';
}

/** A field's columns and the result mapper's conversion of it, or undefined for a shape the mapper builds otherwise. */
function columnField(field: Field, platform: Platform): ColumnField | undefined {
  const { prop } = field;
  const names = prop.fieldNames ?? [];
  if (names.length === 0) return undefined;
  if (names.length === 1) return { field, columns: names, composite: undefined, pre: mapperConversion(prop, platform) };
  // A composite foreign key (the item writer takes scalar target keys only): one column per target key property.
  const target = prop.targetMeta;
  const referenced = prop.referencedColumnNames ?? [];
  if (!target) return undefined;
  const composite = target.getPrimaryProps().map((pk) => names[referenced.indexOf(pk.fieldNames[0]!)]);
  if (composite.length !== names.length || composite.some((c) => c === undefined)) return undefined;
  return { field, columns: names, composite: composite as string[], pre: undefined };
}

/**
 * The column names whose presence in a row makes MikroORM's mapped row differ from what the fields read: a property
 * name that no read column fills (the mapper passes such a column through under that name), and a column of a
 * property the item must not carry (a collection, an inverse side).
 */
function forbiddenColumns(meta: EntityMetadata, read: readonly ColumnField[], absent: readonly string[]): Set<string> {
  const filled = new Set(read.flatMap((c) => c.columns));
  const forbidden = new Set<string>();
  for (const prop of meta.props) if (!filled.has(prop.name)) forbidden.add(prop.name);
  for (const name of absent) for (const column of meta.properties[name]?.fieldNames ?? []) forbidden.add(column);
  return forbidden;
}

/** What the result mapper does to a present, non-null value of a one-column property before hydration sees it. */
function mapperConversion(prop: EntityProperty, platform: Platform): LayoutStep['pre'] {
  if (prop.runtimeType === 'boolean') return 'boolean';
  if (prop.runtimeType !== 'Date' || platform.isNumericProperty(prop)) return undefined;
  // The row loop parses numbers itself where the platform parses them as Platform does (SQLite's epoch ms).
  return { parse: dateParse(platform), numbers: platform.parseDate === Platform.prototype.parseDate };
}

/** The result mapper's parse of a date value that is not a Date (the driver's text, epoch number or bigint). */
function dateParse(platform: Platform): (value: unknown) => unknown {
  const tz = platform.getTimezone();
  const parse = (value: unknown) => platform.parseDate(value as string);
  // MySQL's and MariaDB's text read as UTC (`text + 'Z'`, Platform.parseDate) has a parser of its own.
  const utc = tz === 'Z' && platform.parseDate === Platform.prototype.parseDate;
  // So has PostgreSQL's text with its zone, where the platform parses it alike: it goes to that parse whatever `tz`.
  const fastZoned = readsZonedText(platform);
  return (value) => {
    if (fastZoned && typeof value === 'string') {
      const read = zonedDateText(value);
      if (read) return read;
    }
    if (typeof value === 'bigint') return parse(Number(value));
    if (!tz || tz === 'local') return parse(value);
    if (typeof value === 'number') return parse(value);
    // The mapper would call string methods on it (and throw): the mapped path answers such a value.
    if (typeof value !== 'string') return MISS;
    const read = utc ? utcDateText(value) : undefined;
    if (read) return read;
    const zoned = value.includes('+') || value.lastIndexOf('-') > 10 || value.endsWith('Z');
    return parse(zoned ? value : value + tz);
  };
}

/** Timestamps with their zones, as PostgreSQL prints them: the fast reading must agree with the platform's on each. */
const ZONED_PROBES = [
  '2024-01-15 10:00:00+00',
  '2024-02-29 23:59:59.999999-08',
  '1969-12-31 23:59:59.5+05:30',
  '0100-03-01 00:00:00.12+01:02:03',
];

/**
 * Whether PostgreSQL's zoned timestamp text may be read by zonedDateText(): on PostgreSQL, where the platform's parse
 * (postgres-date in MikroORM's PostgreSQL platform) reads the probes to the same instants. A layout's first page is
 * compared with MikroORM's own mapping besides (writer-check.ts).
 */
function readsZonedText(platform: Platform): boolean {
  if (dialectFor(platform).name !== 'postgresql') return false;
  return ZONED_PROBES.every((text) => {
    const general = platform.parseDate(text) as unknown;
    return general instanceof Date && zonedDateText(text)?.getTime() === general.getTime();
  });
}

/**
 * The row loop's view of one present field. Where the item writer's own converter is a test the loop can inline, it
 * is: a plain reference key (a number or a string, kept as it is: referenceWriter() without a normalizer), and a
 * checked Date (what scalarWriter() gives back unchanged without a custom type, serializer or normalizer).
 */
function layoutStep(c: ColumnField, platform: Platform, at: ReadonlyMap<string, number> | undefined): LayoutStep {
  const step = stepOf(c.field);
  const { prop } = c.field;
  const plain = platform.normalizePrimaryKey === Platform.prototype.normalizePrimaryKey;
  const reference = prop.kind !== ReferenceKind.SCALAR;
  const plainKey = reference && plain && !c.composite && prop.targetMeta?.primaryKeys.length === 1;
  const sameDate = c.field.validate && prop.runtimeType === 'Date' && plain && !prop.customType && !prop.serializer;
  const inline =
    c.field.validate && !(prop.enum && prop.items) && INLINE_TESTS.has(prop.runtimeType)
      ? (prop.runtimeType as LayoutStep['typeTest'])
      : undefined;
  return {
    column: c.columns[0]!,
    composite: c.composite,
    at: at && { column: at.get(c.columns[0]!)!, composite: c.composite?.map((name) => at.get(name)!) },
    key: step.key,
    visible: step.visible,
    pre: c.pre,
    typeTest: plainKey ? 'key' : inline,
    accepts: inline ? undefined : step.accepts,
    write: plainKey || sameDate ? undefined : step.write,
  };
}

const INLINE_TESTS: ReadonlySet<string> = new Set(['string', 'number', 'boolean', 'bigint']);
