/**
 * Everything listql knows about one database, in one place: a `Dialect` of capability flags and small rules per
 * database (`postgresql.ts`, `sqlite.ts`, `mysql.ts`), each built on the defaults of `base.ts`, and `detect.ts`,
 * which tells the dialect of a MikroORM platform once per platform. Every other stage reads flags and rules, never a
 * dialect's name; a further database is one more file here.
 *
 * Names: a dialect is named for its SQL family, as MikroORM's platforms are (`BaseMySqlPlatform`). The family
 * `mysql` covers MySQL and MariaDB, which listql plans alike; where the servers differ the family's `mariaDb` flag
 * says which one it is (`mysql.ts` builds one object for each). The test suite names the server it runs on instead
 * (`sqlite`, `postgresql`, `mariadb`): a MariaDB server there is the `mysql` family with `mariaDb` set.
 */
export { defineDialect } from './base.ts';
export { dialectFor } from './detect.ts';
export { escapeGlob, escapeLike } from './pattern.ts';
export {
  answerAtAbort,
  type Deadline,
  engineRequestTimeout,
  renewDeadline,
  type StatementGuard,
  type StatementRun,
  statementGuard,
} from './statement.ts';
export type {
  Dialect,
  DialectName,
  InsensitiveOperator,
  IntegerRange,
  KeyColumn,
  PatternOperator,
  PlanEstimate,
  PlanFigures,
  RowEstimate,
  SqlText,
} from './types.ts';
