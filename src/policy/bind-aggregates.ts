import { invalidSchema } from '../errors.ts';
import type { BoundAggregates, BoundSchema, FieldKind } from './bound-schema.ts';
import type { RelationAggregates } from './options.ts';

/** The field kinds `sum` and `avg` take: numbers. */
export const SUMMABLE_KINDS: ReadonlySet<FieldKind> = new Set(['integer', 'bigint', 'decimal', 'float']);

/** Every kind but boolean is ordered, so `min` and `max` take it. */
const ORDERED = (kind: FieldKind) => kind !== 'boolean';

const MEASURES = ['sum', 'avg', 'min', 'max'] as const;

/**
 * Check a relation's `aggregates` against its nested policy: only a to-many relation has them, every named field is
 * exposed by the nested policy, numeric for `sum`/`avg` and ordered for `min`/`max`. Undefined when none is allowed.
 */
export function bindAggregates(
  label: string,
  declared: RelationAggregates | undefined,
  many: boolean,
  target: BoundSchema,
): BoundAggregates | undefined {
  if (declared === undefined) return undefined;
  if (!many) throw invalidSchema(`${label}: aggregates apply to to-many relations only`);
  const fields = {} as Record<(typeof MEASURES)[number], Set<string>>;
  for (const fn of MEASURES) {
    const names = declared[fn] ?? [];
    if (!Array.isArray(names)) throw invalidSchema(`${label}: aggregates.${fn} must be a list of field names`);
    fields[fn] = new Set();
    for (const name of names) {
      const field = target.fields.get(name);
      if (!field)
        throw invalidSchema(
          `${label}: aggregates.${fn} names '${String(name)}', which the nested policy does not expose`,
        );
      const fits = fn === 'sum' || fn === 'avg' ? SUMMABLE_KINDS.has(field.kind) : ORDERED(field.kind);
      if (!fits)
        throw invalidSchema(
          `${label}: aggregates.${fn} cannot take '${name}' (a ${field.kind} field); ` +
            (fn === 'sum' || fn === 'avg' ? 'sum and avg take numeric fields' : 'min and max take ordered fields'),
        );
      fields[fn].add(name);
    }
  }
  const count = declared.count === true;
  if (!count && MEASURES.every((fn) => fields[fn].size === 0)) return undefined;
  return Object.freeze({ count, fields: Object.freeze(fields) });
}
