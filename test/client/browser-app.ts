/**
 * The page script of browser.test.ts, bundled by esbuild as a front end would bundle it: the policy's type comes from
 * the server code with `import type`, so nothing but `listql/client` reaches the bundle. Exposes one journey: a cursor
 * walk with a nested selection and an alias, then a request the server refuses.
 */
import type { bookPolicy } from '../../examples/bookstore/policies.ts';
import { client, ListClientError, listClient } from '../../src/client/index.ts';

async function journey(base: string) {
  const books = client<typeof bookPolicy>();
  const request = books
    .fields('title', { author: ['name'] }, { best: { reviews: ['reviewer', 'stars'] } })
    .filter((b) => b.and(b('title', 'ne', "it's"), b.or(b('year', 'lt', 1970), b('author/name', 'startswith', 'Toni'))))
    .sort('-year')
    .limit(2)
    .nested('best', (r) => r.sort('-stars').limit(1).count());
  const api = listClient(`${base}/books`);
  const pages = [];
  for await (const page of api.pages(request))
    pages.push(
      page.items.map((book) => ({
        id: book.id,
        title: book.title,
        author: book.author?.name ?? null,
        best: book.best.items.map((review) => `${review.reviewer} ${review.stars}`),
        reviews: book.best.page.count,
      })),
    );
  const error = await api
    .list(books.filter((b) => b('title', 'endswith', 'x')))
    .then(() => undefined)
    .catch((err: ListClientError) => ({
      typed: err instanceof ListClientError,
      status: err.status,
      code: err.code,
      parameter: err.parameter,
      offset: err.position?.offset,
    }));
  return { query: request.toString(), pages, error };
}

(globalThis as { listqlJourney?: typeof journey }).listqlJourney = journey;
