/**
 * Write a reference value as filter-literal text, in one of several equivalent spellings (`10.5`, `10.50`,
 * `1.05e1`; `Z` or an offset; milliseconds or microseconds), so the library's literal reading is tested too.
 */
import type { Kind, Value } from './values.ts';

const OFFSETS = [0, 330, -480, 60, -60, 840, -720, 59];

/** Write `value` of `kind` as literal text; `variant` picks one of the spellings (any non-negative integer). */
export function writeLiteral(kind: Kind, value: Value, variant: number): string {
  switch (kind) {
    case 'string':
    case 'enum':
      return quote(value as string);
    case 'uuid':
      return quote(variant % 2 ? (value as string).toUpperCase() : (value as string));
    case 'date':
      return quote(value as string);
    case 'boolean':
      return String(value);
    case 'integer':
    case 'bigint':
      return value === 0 || value === 0n ? (variant % 3 === 1 ? '-0' : '0') : String(value);
    case 'float':
      return writeFloat(value as number, variant);
    case 'decimal':
      return writeDecimal(value as string, variant);
    case 'datetime':
      return quote(writeDateTime(value as number, variant));
    default: {
      const never: never = kind;
      throw new Error(`oracle: unknown kind ${String(never)}`);
    }
  }
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function writeFloat(value: number, variant: number): string {
  const plain = Object.is(value, -0) ? '-0' : String(value);
  switch (variant % 3) {
    case 1:
      return value.toExponential();
    case 2:
      return Number.isInteger(value) && Math.abs(value) < 1e21 ? `${plain}.0` : plain;
    default:
      return plain;
  }
}

/** Spell a plain decimal string: as is, with trailing zeros, or in scientific notation. */
export function writeDecimal(value: string, variant: number): string {
  const negative = value.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? value.slice(1) : value).split('.');
  const sign = negative ? '-' : '';
  switch (variant % 4) {
    case 1:
      return `${sign}${whole}.${fraction}00`;
    case 2:
    case 3: {
      const digits = (whole + fraction).replace(/^0+/, '');
      if (digits === '') return variant % 4 === 2 ? '0e5' : '-0.0E-3';
      // The point sits after `whole`; move it to after the first significant digit.
      const lead = (whole + fraction).length - digits.length;
      const exponent = whole.length - lead - 1;
      const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
      return `${sign}${mantissa}${variant % 4 === 2 ? 'e' : 'E'}${exponent}`;
    }
    default:
      return value;
  }
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Spell epoch milliseconds as RFC 3339 with an offset, in whole seconds, milliseconds or microseconds. */
export function writeDateTime(ms: number, variant: number): string {
  let offset = OFFSETS[variant % OFFSETS.length] ?? 0;
  let local = new Date(ms + offset * 60_000);
  if (local.getUTCFullYear() < 1 || local.getUTCFullYear() > 9999) {
    offset = 0;
    local = new Date(ms);
  }
  const date = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  const milli = local.getUTCMilliseconds();
  const style = Math.floor(variant / OFFSETS.length) % 3;
  const trimmed = pad(milli, 3).replace(/0+$/, '') || '0';
  const fraction = style === 1 ? `.${pad(milli, 3)}000` : milli === 0 && style === 0 ? '' : `.${trimmed}`;
  const zone =
    offset === 0 && variant % 2 === 0
      ? 'Z'
      : `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${date}T${time}${fraction}${zone}`;
}
