/**
 * listClient() without a server: what it sends (the URL with the query string after the endpoint's own, a GET, the
 * client's and the call's headers, the abort signal) and how it reads answers: a page, a listql error body (code,
 * message, parameter, position, Retry-After), a body that is not listql's, a page without items. The global `fetch`
 * is called unbound, as browsers require. The answers against a real server are in bookstore.test.ts and
 * browser.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { client, type FetchLike, ListClientError, listClient, type ResponseLike } from '../../src/client/index.ts';

function answer(status: number, body: unknown, headers: Record<string, string> = {}): ResponseLike {
  return {
    ok: status >= 200 && status < 300,
    status,
    headers: { get: (name) => headers[name.toLowerCase()] ?? null },
    json: async () => (typeof body === 'string' ? JSON.parse(body) : body),
  };
}

function recorder(responses: ResponseLike[]) {
  const calls: { url: string; init: Parameters<FetchLike>[1] }[] = [];
  const fetch: FetchLike = async (url, init) => {
    calls.push({ url, init });
    return responses.shift()!;
  };
  return { calls, fetch };
}

const page = (ids: number[], nextCursor?: string) => ({
  items: ids.map((id) => ({ id })),
  page: { limit: 2, offset: 0, hasMore: nextCursor !== undefined, ...(nextCursor ? { nextCursor } : {}) },
});

test('sends a GET with the query string, the headers and the signal', async () => {
  const { calls, fetch } = recorder([answer(200, page([1])), answer(200, page([2])), answer(200, page([3]))]);
  const api = listClient('https://api.test/books', { fetch, headers: { authorization: 'Bearer t', 'x-tenant': '1' } });
  const signal = new AbortController().signal;
  await api.list(client<any>().limit(2).search("it's"), { signal, headers: { 'x-tenant': '2' } });
  await listClient(new URL('https://api.test/books?v=1'), { fetch }).list(client<any>().limit(1));
  await listClient('https://api.test/books', { fetch }).list(client<any>());
  assert.equal(
    calls.map((c) => c.url),
    ['https://api.test/books?limit=2&search=it%27s', 'https://api.test/books?v=1&limit=1', 'https://api.test/books'],
  );
  assert.equal(calls[0]!.init, {
    method: 'GET',
    headers: { accept: 'application/json', authorization: 'Bearer t', 'x-tenant': '2' },
    signal,
  });
  assert.equal(calls[1]!.init, { method: 'GET', headers: { accept: 'application/json' } });
});

test('pages() follows nextCursor until hasMore is false; items() yields each item once', async () => {
  const { calls, fetch } = recorder([
    answer(200, page([1, 2], 'c1')),
    answer(200, page([3, 4], 'c2')),
    answer(200, page([5])),
  ]);
  const ids: unknown[] = [];
  for await (const item of listClient('https://api.test/books', { fetch }).items(client<any>().limit(2).offset(4)))
    ids.push(item.id);
  assert.equal(ids, [1, 2, 3, 4, 5]);
  // The offset makes way for the cursor: the server refuses both together.
  assert.equal(
    calls.map((c) => c.url),
    [
      'https://api.test/books?limit=2&offset=4',
      'https://api.test/books?limit=2&cursor=c1',
      'https://api.test/books?limit=2&cursor=c2',
    ],
  );
});

const ERRORS: [string, ResponseLike, Record<string, unknown>][] = [
  [
    'a listql error body',
    answer(400, {
      code: 'invalid_syntax',
      message: "expected whitespace before '('",
      parameter: 'reviews.filter',
      position: { offset: 8, line: 1, column: 9 },
    }),
    {
      status: 400,
      code: 'invalid_syntax',
      message: "expected whitespace before '('",
      parameter: 'reviews.filter',
      position: { offset: 8, line: 1, column: 9 },
      retryAfter: undefined,
    },
  ],
  [
    'overloaded, with Retry-After',
    answer(503, { code: 'overloaded', message: 'too busy' }, { 'retry-after': '2' }),
    { status: 503, code: 'overloaded', message: 'too busy', parameter: undefined, position: undefined, retryAfter: 2 },
  ],
  [
    'an internal error',
    answer(500, { code: 'internal_error', message: 'internal server error' }),
    {
      status: 500,
      code: 'internal_error',
      message: 'internal server error',
      parameter: undefined,
      position: undefined,
    },
  ],
  [
    'a proxy page that is not JSON',
    answer(502, '<html>bad gateway</html>'),
    { status: 502, code: 'unexpected_response', message: 'unexpected response (HTTP 502)', parameter: undefined },
  ],
  [
    'a 200 that is not a page',
    answer(200, { hello: 'world' }),
    { status: 200, code: 'unexpected_response', message: 'unexpected response (HTTP 200)', parameter: undefined },
  ],
];

for (const [name, response, expected] of ERRORS)
  test(`an error response: ${name}`, async () => {
    const { fetch } = recorder([response]);
    const err = await listClient('https://api.test/books', { fetch })
      .list(client<any>())
      .then((): unknown => assert.unreachable('an error response'))
      .catch((e: unknown) => e);
    assert.instance(err, ListClientError);
    assert.instance(err, Error);
    assert.is((err as ListClientError).name, 'ListClientError');
    for (const [key, value] of Object.entries(expected)) assert.equal((err as any)[key], value, key);
  });

test('the global fetch is looked up at each request and called unbound', async () => {
  const original = globalThis.fetch;
  const seen: unknown[] = [];
  try {
    globalThis.fetch = function (this: unknown, url: string) {
      seen.push([this, url]);
      return Promise.resolve(answer(200, page([7])));
    } as typeof fetch;
    const { items } = await listClient('https://api.test/books').list(client<any>().limit(1));
    assert.equal(items, [{ id: 7 }]);
    assert.equal(seen, [[undefined, 'https://api.test/books?limit=1']]);
  } finally {
    globalThis.fetch = original;
  }
});

test.run();
