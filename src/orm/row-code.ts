import { distinctIds } from './distinct-ids.ts';
import type { Row } from './item-writer.ts';

/**
 * Items of one page of driver rows (objects, or arrays where the layout reads columns by position), or undefined when
 * a row holds something only the mapped path can answer.
 */
export type PageWriter = (rows: readonly Row[]) => Row[] | undefined;

/** One field of a row layout, as the row loop reads, converts, checks and writes it. */
export interface LayoutStep {
  /** The column a one-column field is read from. */
  readonly column: string;
  /** A composite foreign key's columns, in the order of the array the result mapper builds. */
  readonly composite: readonly string[] | undefined;
  /**
   * Rows as arrays: the position of `column` in a row, and of each of `composite`'s columns (arrays' positions are
   * written into the code as numbers, never names). Undefined: rows are objects, read by column name.
   */
  readonly at?: { readonly column: number; readonly composite: readonly number[] | undefined } | undefined;
  readonly key: string;
  /** Written to the item (hidden and `_`-prefixed properties are only checked). */
  readonly visible: boolean;
  /** The result mapper's conversion of a present, non-null value: `!!value`, or a date's parse. */
  readonly pre: 'boolean' | DateParse | undefined;
  /** em.map()'s check of a mapped value by `typeof` alone; `key`: a plain reference key (a number or a string). */
  readonly typeTest: 'string' | 'number' | 'boolean' | 'bigint' | 'key' | undefined;
  /** em.map()'s check of a mapped value, where `typeof` does not tell. */
  readonly accepts: ((value: unknown) => boolean) | undefined;
  /** serialize()'s conversion of a mapped, non-null value (MISS: mapped path); undefined: the value as it is. */
  readonly write: ((value: unknown) => unknown) | undefined;
}

/** The result mapper's parse of a date that is not a Date yet (MISS: mapped path). */
export interface DateParse {
  readonly parse: (value: unknown) => unknown;
  /** The parse of a number is `new Date(n)`, the number itself when that is not a valid date (Platform.parseDate). */
  readonly numbers: boolean;
}

/**
 * The row loop of a layout as generated code: each row's fields read into locals and its item built as one object
 * literal (a fixed shape, the fields in serialize()'s order), about three times faster than the interpreted loop.
 * Only metadata names reach the code, as JSON string literals; converters and checks are passed in as arguments.
 * Undefined where the runtime refuses code generation (a content security policy, `--disallow-code-generation-from-
 * strings`) or a key cannot be written as a literal's key: the interpreted loop serves then.
 */
export function generatedWriter(
  steps: readonly LayoutStep[],
  pks: readonly number[],
  miss: symbol,
): PageWriter | undefined {
  if (steps.some((s) => s.key === '__proto__')) return undefined;
  const names: string[] = ['MISS', 'distinctIds'];
  const values: unknown[] = [miss, distinctIds];
  const pass = (prefix: string, i: number, value: unknown) => {
    names.push(`${prefix}${i}`);
    values.push(value);
    return `${prefix}${i}`;
  };
  const body: string[] = [];
  steps.forEach((s, i) => {
    body.push(...readCode(s, i, pass));
    if (s.typeTest === 'key')
      body.push(`if (m${i} !== null && typeof m${i} !== "number" && typeof m${i} !== "string") return undefined;`);
    else if (s.typeTest)
      body.push(`if (m${i} !== null && typeof m${i} !== ${JSON.stringify(s.typeTest)}) return undefined;`);
    // A Date just made from a number needs no check (the flag is set by readCode()).
    const fresh = typeof s.pre === 'object' && s.pre.numbers ? ` && !d${i}` : '';
    if (s.accepts)
      body.push(`if (m${i} !== null${fresh} && !${pass('accepts', i, s.accepts)}(m${i})) return undefined;`);
    if (!s.visible) return;
    if (!s.write) body.push(`const o${i} = m${i};`);
    else
      body.push(
        `const o${i} = m${i} === null ? null : ${pass('write', i, s.write)}(m${i});`,
        `if (o${i} === MISS) return undefined;`,
      );
  });
  body.push(...identityCode(pks));
  const visible = steps.flatMap((s, i) => (s.visible ? [i] : []));
  body.push(`items[r] = new Item(${visible.map((i) => `o${i}`).join(', ')});`);
  const source = `"use strict";
function Item(${visible.map((i) => `o${i}`).join(', ')}) {
  ${visible.map((i) => `this[${JSON.stringify(steps[i]!.key)}] = o${i};`).join('\n  ')}
}
Item.prototype = Object.prototype;
return function writeRows(rows) {
  const n = rows.length;
  const items = new Array(n);
  const ids = new Array(n);
  for (let r = 0; r < n; r++) {
    const row = rows[r];
    ${body.join('\n    ')}
  }
  return distinctIds(ids) ? items : undefined;
};`;
  try {
    return new Function(...names, source)(...values) as PageWriter;
  } catch {
    return undefined;
  }
}

function readCode(s: LayoutStep, i: number, pass: (prefix: string, i: number, value: unknown) => string): string[] {
  if (s.composite) {
    const parts = s.composite.map((_, j) => `p${i}_${j}`);
    return [
      ...s.composite.map((c, j) => `const ${parts[j]} = row[${cell(c, s.at?.composite?.[j])}];`),
      `if (${parts.map((p) => `${p} === undefined`).join(' || ')}) return undefined;`,
      `let m${i} = null;`,
      `if (${parts.map((p) => `${p} !== null`).join(' && ')}) m${i} = [${parts.join(', ')}];`,
      `else if (${parts.map((p) => `${p} !== null`).join(' || ')}) return undefined;`,
    ];
  }
  const lines = [`let m${i} = row[${cell(s.column, s.at?.column)}];`, `if (m${i} === undefined) return undefined;`];
  if (s.pre === 'boolean') lines.push(`if (m${i} !== null) m${i} = !!m${i};`);
  else if (s.pre) {
    const parse = `{ m${i} = ${pass('parse', i, s.pre.parse)}(m${i}); if (m${i} === MISS) return undefined; }`;
    if (!s.pre.numbers) lines.push(`if (m${i} !== null && !(m${i} instanceof Date)) ${parse}`);
    else
      lines.push(
        `let d${i} = false;`,
        `if (m${i} !== null && !(m${i} instanceof Date)) {`,
        `  if (typeof m${i} === "number") { const d = new Date(m${i}); if (d.getTime() === d.getTime()) { m${i} = d; d${i} = true; } }`,
        `  else ${parse}`,
        '}',
      );
  }
  return lines;
}

/** The code reading a column of a row: its position in an array row (a whole number), else its name as a literal. */
function cell(column: string, at: number | undefined): string {
  if (at === undefined) return JSON.stringify(column);
  if (!Number.isSafeInteger(at) || at < 0) throw new Error('listql: a column position is not a whole number');
  return String(at);
}

/**
 * em.map() refuses a row without its primary key, and one identity seen twice would be one entity: the identities are
 * gathered and checked once for the page (distinctIds()).
 */
function identityCode(pks: readonly number[]): string[] {
  const bad = (i: number) => `m${i} === null || m${i} === undefined || typeof m${i} === "object"`;
  if (pks.length === 1) {
    const i = pks[0]!;
    return [`if (${bad(i)}) return undefined;`, `ids[r] = m${i};`];
  }
  return [
    `if (${pks.map((i) => `${bad(i)}`).join(' || ')}) return undefined;`,
    `ids[r] = ${pks.map((i) => `typeof m${i} + ":" + String(m${i}) + "\\u0000"`).join(' + ')};`,
  ];
}

/** The same row loop, interpreted: for runtimes that refuse generated code. */
export function interpretedWriter(steps: readonly LayoutStep[], pks: readonly number[], miss: symbol): PageWriter {
  return (rows) => {
    const items: Row[] = new Array(rows.length);
    const ids: unknown[] = new Array(rows.length);
    const mapped: unknown[] = new Array(steps.length);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const item: Row = {};
      for (let i = 0; i < steps.length; i++) {
        const s = steps[i]!;
        const m = mappedValue(row, s, miss);
        if (m === miss) return undefined;
        mapped[i] = m;
        if (m === null) {
          if (s.visible) item[s.key] = null;
          continue;
        }
        if (
          s.typeTest === 'key' ? typeof m !== 'number' && typeof m !== 'string' : s.typeTest && typeof m !== s.typeTest
        )
          return undefined;
        if (s.accepts !== undefined && !s.accepts(m)) return undefined;
        if (!s.visible) continue;
        const out = s.write === undefined ? m : s.write(m);
        if (out === miss) return undefined;
        item[s.key] = out;
      }
      const id = identity(mapped, pks);
      if (id === undefined) return undefined;
      ids[r] = id;
      items[r] = item;
    }
    return distinctIds(ids) ? items : undefined;
  };
}

/** A field's value as MikroORM's result mapper leaves it; `miss` for one the mapped path must answer. */
function mappedValue(row: Row, s: LayoutStep, miss: symbol): unknown {
  if (s.composite) {
    let nulls = 0;
    const parts: unknown[] = new Array(s.composite.length);
    for (let j = 0; j < s.composite.length; j++) {
      const v = (row as CellRow)[s.at?.composite?.[j] ?? s.composite[j]!];
      if (v === undefined) return miss;
      if (v === null) nulls++;
      parts[j] = v;
    }
    return nulls === 0 ? parts : nulls === parts.length ? null : miss;
  }
  const v = (row as CellRow)[s.at?.column ?? s.column];
  if (v === undefined) return miss;
  if (v === null || s.pre === undefined) return v;
  if (s.pre === 'boolean') return !!v;
  return v instanceof Date ? v : s.pre.parse(v);
}

/** A row read by name (an object) or by position (an array). */
type CellRow = Readonly<Record<string | number, unknown>>;

function identity(mapped: readonly unknown[], pks: readonly number[]): unknown {
  let id = '';
  for (const i of pks) {
    const v = mapped[i];
    if (v === null || v === undefined || typeof v === 'object') return undefined;
    if (pks.length === 1) return v;
    id += `${typeof v}:${String(v)}\u0000`;
  }
  return id;
}
