/**
 * Bulk-load the benchmark tables with generated rows, in SQL, so a million rows load in seconds: PostgreSQL's
 * generate_series, MariaDB's sequence tables (`seq_1_to_N`), a recursive CTE on SQLite.
 */
import type { MikroORM } from '@mikro-orm/core';

/**
 * Insert `n` books (and 1,000 authors, and a review on every tenth book). Scores repeat (n % 500) and are NULL on
 * every tenth row, so sorting by score needs the primary-key tie-breaker; created_at is unique per row.
 */
export async function loadBooks(orm: MikroORM, dialect: 'sqlite' | 'postgresql' | 'mariadb', n: number): Promise<void> {
  const conn = orm.em.getConnection();
  if (dialect === 'mariadb') {
    await conn.execute(`insert into author (id, name) select seq, concat('author ', seq) from seq_1_to_1000`);
    await conn.execute(
      `insert into book (id, title, price, score, created_at, author_id)
       select seq, concat('title ', seq), (seq * 7919) % 1000, case when seq % 10 = 0 then null else seq % 500 end,
              timestamp '2020-01-01 00:00:00' + interval seq second, 1 + seq % 1000
       from seq_1_to_${n}`,
    );
    if (n >= 10)
      await conn.execute(
        `insert into review (id, stars, book_id) select seq div 10, seq % 6, seq from seq_10_to_${n}_step_10`,
      );
    await conn.execute('analyze table author, book, review');
    return;
  }
  if (dialect === 'postgresql') {
    await conn.execute(`insert into author (id, name) select g, 'author ' || g from generate_series(1, 1000) g`);
    await conn.execute(
      `insert into book (id, title, price, score, created_at, author_id)
       select g, 'title ' || g, (g::bigint * 7919) % 1000, case when g % 10 = 0 then null else g % 500 end,
              timestamptz '2020-01-01' + g * interval '1 second', 1 + g % 1000
       from generate_series(1, ${n}) g`,
    );
    await conn.execute(
      `insert into review (id, stars, book_id) select g / 10, g % 6, g from generate_series(10, ${n}, 10) g`,
    );
    await conn.execute('analyze');
    return;
  }
  await conn.execute(
    `with recursive g(n) as (select 1 union all select n + 1 from g where n < 1000)
     insert into author (id, name) select n, 'author ' || n from g`,
  );
  await conn.execute(
    `with recursive g(n) as (select 1 union all select n + 1 from g where n < ${n})
     insert into book (id, title, price, score, created_at, author_id)
     select n, 'title ' || n, (n * 7919) % 1000, case when n % 10 = 0 then null else n % 500 end,
            1577836800000 + n * 1000, 1 + n % 1000
     from g`,
  );
  await conn.execute(
    `with recursive g(n) as (select 10 union all select n + 10 from g where n + 10 <= ${n})
     insert into review (id, stars, book_id) select n / 10, n % 6, n from g`,
  );
}
