import type { Platform } from '@mikro-orm/core';
import type { FieldRef, ResolvedCompare, ResolvedFilter } from '../bind/types.ts';
import type { Dialect } from './dialect.ts';
import { joinFragments, type SqlFragment } from './fragment.ts';
import { likeFragment } from './like.ts';
import { isRootRef, relationshipError } from './support.ts';

/** What compiling a filter needs to know about the query it goes into. */
export interface PredicateContext {
  readonly platform: Platform;
  readonly dialect: Dialect;
  /** The alias of the root entity in the query (`qb.alias`). */
  readonly alias: string;
}

const COMPARISON_SQL: Readonly<Record<ResolvedCompare['operator'], string>> = {
  eq: '=',
  ne: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
};

/**
 * Compile a resolved filter to SQL with `?` placeholders. Every compound is parenthesized, so the text can be
 * ANDed into any where clause; NULLs follow SQL's three-valued logic (a row matches only when the filter is TRUE).
 *
 * @example compileFilter(`not (stock gt 0) or name eq 'x'`) → `(not ("p"."stock" > ?) or "p"."name" = ?)`, [0, 'x']
 */
export function compileFilter(filter: ResolvedFilter, ctx: PredicateContext): SqlFragment {
  switch (filter.kind) {
    case 'compare':
      return { sql: `${column(filter.target, ctx)} ${COMPARISON_SQL[filter.operator]} ?`, params: [filter.value] };
    case 'like':
      return likeFragment(ctx.dialect, column(filter.target, ctx), filter.operator, filter.value);
    case 'in': {
      // The grammar forbids empty lists; should one arrive anyway, keep the set semantics instead of emitting `in ()`.
      if (filter.values.length === 0) return { sql: filter.negated ? '(1 = 1)' : '(1 = 0)', params: [] };
      const list = filter.values.map(() => '?').join(', ');
      return {
        sql: `${column(filter.target, ctx)} ${filter.negated ? 'not in' : 'in'} (${list})`,
        params: filter.values,
      };
    }
    case 'null':
      return { sql: `${column(filter.target, ctx)} ${filter.negated ? 'is not null' : 'is null'}`, params: [] };
    case 'not': {
      const operand = compileFilter(filter.operand, ctx);
      return { sql: `not (${operand.sql})`, params: operand.params };
    }
    case 'and':
    case 'or': {
      // Flatten a chain of the same connective into one parenthesized list: `a and b and c`, not `((a and b) and c)`.
      const parts = chain(filter, filter.kind).map((f) => compileFilter(f, ctx));
      const joined = joinFragments(parts, ` ${filter.kind} `);
      return { sql: `(${joined.sql})`, params: joined.params };
    }
    case 'quantifier':
      throw relationshipError('filter', filter.span);
    default: {
      const never: never = filter;
      throw new Error(`unknown filter node ${String((never as ResolvedFilter).kind)}`);
    }
  }
}

function chain(filter: ResolvedFilter, kind: 'and' | 'or'): ResolvedFilter[] {
  if ((filter.kind === 'and' || filter.kind === 'or') && filter.kind === kind)
    return [...chain(filter.left, kind), ...chain(filter.right, kind)];
  return [filter];
}

/** Quote the root column a reference names, from metadata: identifiers never come from client input. */
function column(ref: FieldRef, ctx: PredicateContext): string {
  if (!isRootRef(ref)) throw relationshipError('filter', ref.span);
  return ctx.platform.quoteIdentifier(`${ctx.alias}.${ref.field.column}`);
}
