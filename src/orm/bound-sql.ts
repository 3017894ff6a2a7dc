import { isRaw, type Platform, RawQueryFragment, Utils } from '@mikro-orm/core';
import { mapFor, setBounded } from '../bounded-map.ts';
import { type Dialect, dialectFor } from '../dialect/index.ts';
import { deferredAt, MARKER_OPEN } from './deferred-sql.ts';

/** SQL text in the driver's own placeholder style, and the values to send with it. */
export interface BoundStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/**
 * Turn MikroORM's compiled SQL (`?` values, `??` identifiers, nested raw fragments among the params) into one
 * statement with real parameters: `$1…$n` on PostgreSQL, `?` on SQLite, MySQL and MariaDB. It reads placeholders the way MikroORM's
 * `platform.formatQuery()` does (`\?` is a literal `?`, arrays expand to lists, raw fragments splice in), except
 * that it skips quoted strings, quoted identifiers and comments, and it sends each value instead of inlining it.
 * It relies on that placeholder syntax of MikroORM 7 (and on RawQueryFragment.getKnownFragment and the
 * `JsonProperty` tag of JSON arrays).
 *
 * Checked against MikroORM 7.2.1 (the development pin), 7.2.2 with SQLite and 7.2.5 with PostgreSQL (`npm run
 * compat`). When a version differs: createEngine compiles a probe query holding each placeholder kind,
 * binds it and compares it with `platform.formatQuery()` (compat.ts), refusing to run on any difference; a statement
 * whose placeholders and values do not pair up throws rather than run.
 *
 * A text is read once for its placeholders (plainTemplate): when it holds only plain `?` and every value is one
 * parameter (no fragment, list or symbol), the remembered text is sent with the converted values; else the text is
 * read again with its values (bindStatementCold), as it was the first time.
 *
 * @example bindStatement(pg, 'select * from "p" where "p"."id" in (?) and ?? = ?', [[1, 2], 'p.name', 'x'])
 * // { sql: 'select * from "p" where "p"."id" in ($1, $2) and "p"."name" = $3', parameters: [1, 2, 'x'] }
 */
export function bindStatement(
  platform: Platform,
  sql: string,
  params: readonly unknown[],
  dialect: Dialect = dialectFor(platform),
): BoundStatement {
  const template = plainTemplate(sql, dialect);
  if (template && template.count === params.length && params.every(isPlainValue))
    return { sql: template.sql, parameters: params.map((v) => driverValue(dialect, platform, v)) };
  return bindStatementCold(platform, sql, params, dialect);
}

/**
 * A text's placeholders, read once per text: how many plain `?` it holds and the text the driver gets. Null when the
 * text holds anything else (`??`, `\?`, a deferred fragment's marker); such texts always take bindStatementCold.
 */
interface PlainTemplate {
  readonly count: number;
  readonly sql: string;
}
/**
 * Texts read per dialect, the oldest forgotten first: room for every statement text an API's shapes compile to; a
 * forgotten text is only read again.
 */
const TEMPLATES_PER_DIALECT = 1024;
const templates = new WeakMap<Dialect, Map<string, PlainTemplate | null>>();

function plainTemplate(sql: string, dialect: Dialect): PlainTemplate | null {
  const known = mapFor(templates, dialect);
  let template = known.get(sql);
  if (template === undefined) {
    // A marker names one statement's fragment: the text is not seen again, so it is not kept.
    if (sql.includes(MARKER_OPEN)) return null;
    template = readTemplate(sql, dialect);
    setBounded(known, sql, template, TEMPLATES_PER_DIALECT);
  }
  return template;
}

/** Read a text as bindStatementCold's emit() reads it, for plain placeholders only. */
function readTemplate(text: string, dialect: Dialect): PlainTemplate | null {
  let count = 0;
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const skipTo = skipQuotedOrComment(text, i, dialect);
    if (skipTo > i) {
      i = skipTo;
      continue;
    }
    const c = text[i];
    if (c === '\\' && text[i + 1] === '?') return null;
    if (c === '?') {
      if (text[i + 1] === '?') return null;
      count++;
      if (dialect.numberedPlaceholders) {
        out += `${text.slice(copied, i)}$${count}`;
        copied = i + 1;
      }
    }
    i++;
  }
  return { count, sql: dialect.numberedPlaceholders ? out + text.slice(copied) : text };
}

/** A value bindStatementCold's value() sends as one parameter: no fragment, symbol or list to expand. */
function isPlainValue(v: unknown): boolean {
  const type = typeof v;
  if (type === 'object') return v === null || v instanceof Date;
  return type !== 'symbol' && type !== 'function';
}

/**
 * bindStatement without its per-text template: every placeholder read from the text (tests compare the two).
 *
 * size: three closures (values, identifiers, text) that call each other over one output buffer and parameter list;
 * apart, each would have to carry both on every call of this per-statement loop.
 */
export function bindStatementCold(
  platform: Platform,
  sql: string,
  params: readonly unknown[],
  dialect: Dialect = dialectFor(platform),
): BoundStatement {
  const parameters: unknown[] = [];
  let out = '';

  const value = (v: unknown): void => {
    const fragment = fragmentOf(v);
    if (fragment) emit(fragment.sql, fragment.params);
    else if (Array.isArray(v) && !isJsonTagged(v)) {
      v.forEach((item, i) => {
        if (i > 0) out += ', ';
        value(item);
      });
    } else {
      parameters.push(driverValue(dialect, platform, v));
      out += dialect.numberedPlaceholders ? `$${parameters.length}` : '?';
    }
  };

  const identifier = (v: unknown): void => {
    const fragment = fragmentOf(v);
    if (fragment) emit(fragment.sql, fragment.params);
    else out += platform.quoteIdentifier(String(v));
  };

  const emit = (text: string, values: readonly unknown[]): void => {
    let next = 0;
    const take = (): unknown => {
      if (next >= values.length) throw new Error('listql: more placeholders than parameters in compiled SQL');
      return values[next++];
    };
    let i = 0;
    let copied = 0;
    while (i < text.length) {
      const c = text[i];
      // A marker of SQL kept apart so its values stay bound (deferred-sql.ts): the fragment goes in its place.
      const deferred = c === '/' ? deferredAt(text, i) : undefined;
      if (deferred) {
        out += text.slice(copied, i);
        emit(deferred.fragment.sql, deferred.fragment.params);
        i = deferred.end;
        copied = i;
        continue;
      }
      const skipTo = skipQuotedOrComment(text, i, dialect);
      if (skipTo > i) {
        i = skipTo;
        continue;
      }
      if (c === '\\' && text[i + 1] === '?') {
        out += text.slice(copied, i) + '?';
        i += 2;
        copied = i;
      } else if (c === '?') {
        out += text.slice(copied, i);
        if (text[i + 1] === '?') {
          identifier(take());
          i += 2;
        } else {
          value(take());
          i += 1;
        }
        copied = i;
      } else i++;
    }
    out += text.slice(copied);
    if (next !== values.length) throw new Error('listql: fewer placeholders than parameters in compiled SQL');
  };

  emit(sql, params);
  return { sql: out, parameters };
}

/** Return the index just past a quoted string, quoted identifier or comment starting at `i`, or `i` if none does. */
function skipQuotedOrComment(text: string, i: number, dialect: Dialect): number {
  const c = text[i];
  if (dialect.backslashEscapes) {
    // MySQL and MariaDB strings (single or double quoted) escape with backslashes; `#` starts a line comment.
    if (c === "'" || c === '"') return closeQuote(text, i, c, true);
    if (c === '#') {
      const end = text.indexOf('\n', i);
      return end === -1 ? text.length : end + 1;
    }
  }
  if (c === "'") {
    // PostgreSQL E'…' strings escape with backslashes; standard strings (and SQLite's) only double the quote.
    const backslashes = i > 0 && /[Ee]/.test(text[i - 1] ?? '') && !/[\w$]/.test(text[i - 2] ?? '');
    return closeQuote(text, i, "'", backslashes);
  }
  if (c === '"' || c === '`') return closeQuote(text, i, c, false);
  if (c === '-' && text[i + 1] === '-') {
    const end = text.indexOf('\n', i);
    return end === -1 ? text.length : end + 1;
  }
  if (c === '/' && text[i + 1] === '*') {
    const end = text.indexOf('*/', i + 2);
    return end === -1 ? text.length : end + 2;
  }
  return i;
}

function closeQuote(text: string, open: number, quote: string, backslashes: boolean): number {
  let k = open + 1;
  while (k < text.length) {
    const c = text[k];
    if (backslashes && c === '\\') k += 2;
    else if (c === quote) {
      if (text[k + 1] !== quote) return k + 1;
      k += 2;
    } else k++;
  }
  return text.length;
}

function fragmentOf(v: unknown): RawQueryFragment | undefined {
  if (isRaw(v)) return v;
  return typeof v === 'symbol' ? RawQueryFragment.getKnownFragment(v) : undefined;
}

/** MikroORM tags JSON arrays with a symbol named `JsonProperty` so they are stringified instead of expanded. */
function isJsonTagged(v: object): boolean {
  return Object.getOwnPropertySymbols(v).some((s) => s.description === 'JsonProperty');
}

/** Convert a value to what the driver binds with the meaning MikroORM's inlined literal would have had. */
function driverValue(dialect: Dialect, platform: Platform, v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (typeof v === 'object' && (Utils.isPlainObject(v) || isJsonTagged(v))) return JSON.stringify(v);
  return dialect.driverValue(v, platform);
}
