/**
 * PostgreSQL's zoned timestamp text, read by the row writer's own parser (orm/date-text.ts), gives the instants
 * MikroORM's PostgreSQL platform (postgres-date) gives, and leaves every other text to it. No database.
 */
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { zonedDateText } from '../../src/orm/date-text.ts';

/** PostgreSQL's zoned timestamp text: the fast reading equals MikroORM's PostgreSQL parse wherever it answers. */
const zoned = suite('export dates: PostgreSQL zoned timestamp text');
zoned('zonedDateText() gives what the PostgreSQL platform gives, and leaves other text to it', () => {
  const platform = new PostgreSqlPlatform();
  const general = (text: string) => platform.parseDate(text) as unknown;
  const plain = [
    '2024-01-15 10:00:00+00',
    '2024-01-15 10:00:00.5+00',
    '2024-01-15 10:00:00.123456-08',
    '1969-12-31 23:59:59.999+05:30',
    '0100-01-01 00:00:00+01:02:03',
    '9999-12-31 23:59:59.999999-00',
    '2021-02-29 10:00:00+00', // rolls over to March 1st, as postgres-date's Date.UTC() does
  ];
  for (const text of plain) {
    const expected = general(text);
    assert.ok(expected instanceof Date, text);
    assert.is(zonedDateText(text)?.getTime(), (expected as Date).getTime(), text);
  }
  const unusual = [
    '2024-01-15 10:00:00', // no zone: local time, the general parser's
    '2024-01-15T10:00:00+00',
    '0099-01-01 00:00:00+00',
    '2024-01-15 10:00:00+00 BC',
    '2024-01-15 10:00:00.+00',
    '2024-01-15 10:00:00+0',
    '2024-01-15 10:00:00+00:3',
    '2024-01-15 10:00:00+00:30:00:00',
    '2024-01-15 10:00:00Z',
    '12024-01-15 10:00:00+00',
    'infinity',
  ];
  for (const text of unusual) assert.is(zonedDateText(text), undefined, text);
  // Spread instants with 0 to 7 fraction digits and offsets of every shape.
  const offsets = ['+00', '-00', '+05', '-11', '+05:30', '-03:30', '+01:02:03', '-09:59:59', '+14'];
  for (let i = 0, t = Date.UTC(100, 0, 1); t < Date.UTC(9999, 0, 1); i++, t += 86_400_000 * 89 + 3_600_123 * i) {
    const iso = new Date(t).toISOString().replace('T', ' ');
    const digits = i % 8;
    const fraction = digits === 0 ? '' : `.${`${iso.slice(20, 23)}${i}0000000`.slice(0, digits)}`;
    const text = `${iso.slice(0, 19)}${fraction}${offsets[i % offsets.length]}`;
    const expected = general(text);
    assert.ok(expected instanceof Date, text);
    assert.is(zonedDateText(text)?.getTime(), (expected as Date).getTime(), text);
  }
});
zoned.run();
