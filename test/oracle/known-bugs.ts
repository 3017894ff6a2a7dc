/**
 * Library bugs the oracle found that live in stages this suite may not change (owned elsewhere at the time).
 * Each has a regression row in test/properties/property-regressions.test.ts, skipped while the bug is open, and the random
 * generators avoid the inputs that trigger it, so the rest of the budget still runs. `LISTQL_KNOWN_BUGS=1` turns
 * the rows and the inputs back on. Delete an entry when its bug is fixed.
 */

export const SHOW_KNOWN_BUGS = process.env.LISTQL_KNOWN_BUGS === '1';

export const KNOWN_BUGS = {} as const;
