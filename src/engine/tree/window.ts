import { raw, sql } from '@mikro-orm/sql';
import { mirrorKeys } from '../../keyset/backward.ts';
import type { CursorKey, KeyContext } from '../../keyset/cursor-plan.ts';
import { keysetColumns } from '../../keyset/key-columns.ts';
import type { NestedPosition } from '../../keyset/nested-cursor.ts';
import { keysetPredicate } from '../../keyset/seek-predicate.ts';
import { sortExpression } from '../../plan/order.ts';
import type { AnyQueryBuilder } from '../../plan/plan-query.ts';
import { LEVEL_ALIAS, type LevelLink, PIVOT_ALIAS } from './link.ts';

/** The row number of a list's row within its parent's list, in the list's order (1 for the first row). */
export const RANK = 'lq_rn';
/** The row number in the mirrored order, when one parent's list is read backward from a cursor. */
export const BACK_RANK = 'lq_rb';

/** The alias of the table holding a level's parent key columns: the pivot of an m:n level, else its target. */
export function innerAlias(link: LevelLink): string {
  return link.pivot ? PIVOT_ALIAS : LEVEL_ALIAS;
}

/** The level's parent key columns, quoted and qualified (`"lq_n"."book_id"`). */
export function innerColumns(link: LevelLink, ctx: KeyContext): string[] {
  const alias = innerAlias(link);
  return link.inner.map((key) => ctx.bound.platform.quoteIdentifier(`${alias}.${key.sort.column}`));
}

/**
 * Join the pivot table of an m:n level to its target: `inner join "lq3" as "lq_j" on "lq_j"."tag_id" = "lq_n"."id"`.
 * Every row of the level is then one (parent, target) pair; identifiers come from metadata only.
 */
export function joinPivot(qb: AnyQueryBuilder, link: LevelLink, ctx: KeyContext): void {
  if (!link.pivot) return;
  const quote = (id: string) => ctx.bound.platform.quoteIdentifier(id);
  const on = link.pivot.pairs.map(
    (p) => `${quote(`${PIVOT_ALIAS}.${p.inner}`)} = ${quote(`${LEVEL_ALIAS}.${p.outer}`)}`,
  );
  qb.join(sql.ref(link.pivot.table) as never, PIVOT_ALIAS, { [raw(on.join(' and '))]: [] } as never);
}

/**
 * Number each row within its parent's list: `row_number() over (partition by <parent key> order by <keys>)`, the
 * keys written with the dialect's NULL placement (NULLS LAST in both directions, as every list orders; NULLS FIRST
 * where a mirrored order puts them). `mirrored`: number the mirrored order too (`lq_rb`), by which the continued
 * parent's list is read back from a backward cursor while the others are read forward.
 */
export function selectRanks(
  qb: AnyQueryBuilder,
  link: LevelLink,
  keys: readonly CursorKey[],
  ctx: KeyContext,
  mirrored: boolean,
): void {
  const quote = (id: string) => ctx.bound.platform.quoteIdentifier(id);
  const partition = innerColumns(link, ctx).join(', ');
  const rank = (ordered: readonly CursorKey[], name: string) => {
    const terms = ordered.map(({ sort }) =>
      ctx.dialect.orderTerm(
        sortExpression(ctx.dialect, sort, quote(`${sort.alias ?? LEVEL_ALIAS}.${sort.column}`)),
        sort.direction,
        !sort.nullable ? 'any' : sort.nullsFirst ? 'first' : 'last',
      ),
    );
    return raw(`row_number() over (partition by ${partition} order by ${terms.join(', ')}) as ${quote(name)}`);
  };
  qb.addSelect(mirrored ? [rank(keys, RANK), rank(mirrorKeys(keys), BACK_RANK)] : [rank(keys, RANK)]);
}

/**
 * Continue one parent's list from a nested cursor: that parent's rows after the position in `keys`' order (mirrored
 * keys: before it), every other parent's rows as they are: `(<parent key> <> ? or <seek predicate>)`, values bound.
 */
export function seekParent(
  qb: AnyQueryBuilder,
  link: LevelLink,
  keys: readonly CursorKey[],
  position: NestedPosition,
  ctx: KeyContext,
): void {
  const columns = keysetColumns(qb, keys, ctx.bound.platform, ctx.dialect);
  const seek = keysetPredicate(columns, position.keys, { rowValues: ctx.dialect.rowValueSeek });
  const other = innerColumns(link, ctx).map((column) => `${column} <> ?`);
  qb.andWhere(`(${other.join(' or ')} or ${seek.sql})`, [...position.parent, ...seek.params]);
}
