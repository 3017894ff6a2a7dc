/**
 * The bookstore's `search=`: a case-insensitive match on titles. The term is escaped (`%`, `_` and the escape
 * character `!`) and bound, never spliced into SQL. `!` rather than a backslash: MySQL and MariaDB read a backslash
 * inside a string literal as an escape of their own, so `escape '!'` is written the same on every database. The API
 * and the export script share it, so `search` means the same in both.
 */
import { escapeLike, type SearchCallback } from '../../src/index.ts'; // in an application: from 'listql'

/** Narrow a book query to titles containing the term, ignoring case. */
export const titleSearch: SearchCallback = (_ctx, qb, term) =>
  qb.andWhere(`lower(${qb.alias}.title) like ? escape '!'`, [`%${escapeLike(term.toLowerCase(), '!')}%`]);
