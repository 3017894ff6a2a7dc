/**
 * The reference's typed values and their order, written without any listql code. Each kind keeps one exact
 * JavaScript representation: strings compare by code point (= UTF-8 byte order, the binary/C collation of the test
 * databases), integers and floats as numbers, bigints as BigInt, decimals as exact decimal strings, date-times
 * as epoch milliseconds, dates as 'YYYY-MM-DD' strings.
 */

/** The field kinds of DESIGN §3, as the reference understands them. */
export type Kind =
  | 'string'
  | 'enum'
  | 'uuid'
  | 'integer'
  | 'bigint'
  | 'decimal'
  | 'float'
  | 'boolean'
  | 'datetime'
  | 'date';

/** One value of a field; `null` is SQL NULL. */
export type Value = string | number | bigint | boolean | null;

/** Compare two strings by Unicode code point, which is the byte order of their UTF-8 encodings. */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Compare two plain decimal strings (`-12.50`, `0.001`) exactly, digit by digit. */
export function compareDecimals(a: string, b: string): number {
  const [sa, ia, fa] = splitDecimal(a);
  const [sb, ib, fb] = splitDecimal(b);
  const zeroA = /^0*$/.test(ia + fa);
  const zeroB = /^0*$/.test(ib + fb);
  const signA = zeroA ? 0 : sa ? -1 : 1;
  const signB = zeroB ? 0 : sb ? -1 : 1;
  if (signA !== signB) return signA < signB ? -1 : 1;
  if (signA === 0) return 0;
  const magnitude = compareMagnitude(ia, fa, ib, fb);
  return signA < 0 ? -magnitude : magnitude;
}

function splitDecimal(text: string): [boolean, string, string] {
  const m = DECIMAL.exec(text);
  if (!m) throw new Error(`oracle: not a plain decimal: ${text}`);
  return [m[1] === '-', (m[2] ?? '').replace(/^0+/, ''), (m[3] ?? '').replace(/0+$/, '')];
}

function compareMagnitude(ia: string, fa: string, ib: string, fb: string): number {
  if (ia.length !== ib.length) return ia.length < ib.length ? -1 : 1;
  if (ia !== ib) return ia < ib ? -1 : 1;
  const width = Math.max(fa.length, fb.length);
  const x = fa.padEnd(width, '0');
  const y = fb.padEnd(width, '0');
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Compare two non-null values of one kind: negative, zero or positive. */
export function compareValues(kind: Kind, a: Value, b: Value): number {
  switch (kind) {
    case 'string':
    case 'enum':
    case 'date':
      return compareCodePoints(a as string, b as string);
    case 'uuid':
      return compareCodePoints((a as string).toLowerCase(), (b as string).toLowerCase());
    case 'decimal':
      return compareDecimals(a as string, b as string);
    case 'integer':
    case 'float':
    case 'datetime':
    case 'bigint':
    case 'boolean': {
      const x = typeof a === 'boolean' ? Number(a) : (a as number | bigint);
      const y = typeof b === 'boolean' ? Number(b) : (b as number | bigint);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    default: {
      const never: never = kind;
      throw new Error(`oracle: unknown kind ${String(never)}`);
    }
  }
}
