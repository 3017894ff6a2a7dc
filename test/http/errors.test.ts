/**
 * errorResponse maps every error to a status and a public body; writeError writes it to a real Node server's
 * response and to an Express response. Server-side failures answer a bare 500 that carries nothing of the cause.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ERROR_STATUS, type ErrorCode, ListError } from '../../src/errors.ts';
import { errorResponse, stringifyJSON, writeError } from '../../src/http/errors.ts';

const INTERNAL = { code: 'internal_error', message: 'internal server error' };
const position = { offset: 4, line: 1, column: 5 };
const cause = new Error('select * from secret_table where x = $1');

interface Row {
  readonly name: string;
  readonly error: unknown;
  readonly status: number;
  readonly body: unknown;
}

const ROWS: readonly Row[] = [
  ...(Object.keys(ERROR_STATUS) as ErrorCode[])
    .filter((code) => ERROR_STATUS[code] === 400)
    .map((code) => ({
      name: `${code}: 400 with the public error`,
      error: new ListError(code, `a ${code} message`, { parameter: 'filter', position, cause }),
      status: 400,
      body: { code, message: `a ${code} message`, parameter: 'filter', position },
    })),
  {
    name: 'a client error without parameter or position',
    error: new ListError('invalid_parameter', 'count is not allowed'),
    status: 400,
    body: { code: 'invalid_parameter', message: 'count is not allowed' },
  },
  {
    name: 'invalid_schema: bare 500',
    error: new ListError('invalid_schema', 'Book.secret is hidden', { cause }),
    status: 500,
    body: INTERNAL,
  },
  {
    name: 'execution_failed: bare 500',
    error: new ListError('execution_failed', 'the query failed', { cause }),
    status: 500,
    body: INTERNAL,
  },
  { name: 'a plain Error: bare 500', error: cause, status: 500, body: INTERNAL },
  {
    name: 'an error carrying an HTTP status of its own: still 500',
    error: Object.assign(new Error('nope'), { status: 404, statusCode: 404, code: 'ENOENT' }),
    status: 500,
    body: INTERNAL,
  },
  { name: 'a thrown string', error: 'boom', status: 500, body: INTERNAL },
  { name: 'a thrown undefined', error: undefined, status: 500, body: INTERNAL },
];

for (const row of ROWS) {
  test(`errorResponse: ${row.name}`, () => {
    const response = errorResponse(row.error);
    assert.is(response.status, row.status);
    assert.equal(JSON.parse(JSON.stringify(response.body)), row.body);
    assert.not.ok(JSON.stringify(response.body).includes('secret_table'));
  });
}

test('stringifyJSON writes a bigint as its decimal string', () => {
  assert.is(stringifyJSON({ n: 9007199254740993n, s: 'x' }), '{"n":"9007199254740993","s":"x"}');
});

test('stringifyJSON: the plain attempt and the bigint fallback give what one replacer pass gives', () => {
  const replacer = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);
  const at = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6));
  const bodies: unknown[] = [
    { items: [{ id: 1, at, price: 1.5, tags: ['a', null], gone: undefined }], page: { hasMore: false } },
    {
      items: [
        { id: 1, title: 'x' },
        { id: 2n, title: 'y', at },
      ],
      page: { nextCursor: 'abc' },
    },
    { items: [{ big: [1n, { deep: -2n }], fn: () => 1, viaToJSON: { toJSON: () => 7n } }] },
    [0n],
    12n,
    'text',
    null,
  ];
  for (const body of bodies) assert.is(stringifyJSON(body), JSON.stringify(body, replacer));
  const loop: Record<string, unknown> = { n: 1n };
  loop.self = loop;
  assert.throws(() => stringifyJSON(loop), TypeError);
});

/** Serve `handler` at 127.0.0.1, run `fn` against its URL, and close it. */
async function withServer(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const server: Server = createServer(listener).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const TARGETS = [
  { name: 'a Node ServerResponse', listener: (error: unknown) => (_req, res) => writeError(res, error) },
  {
    name: 'an Express response',
    listener: (error: unknown) => {
      const app = express();
      app.get('/', (_req, res) => writeError(res, error));
      return app;
    },
  },
] satisfies { name: string; listener: (error: unknown) => (req: IncomingMessage, res: ServerResponse) => void }[];

for (const target of TARGETS) {
  for (const row of ROWS.filter((_, i) => i === 0 || i >= ROWS.length - 6)) {
    test(`writeError to ${target.name}: ${row.name}`, () =>
      withServer(target.listener(row.error), async (url) => {
        const res = await fetch(url);
        assert.is(res.status, row.status);
        assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
        const text = await res.text();
        assert.is(res.headers.get('content-length'), String(Buffer.byteLength(text)));
        assert.equal(JSON.parse(text), row.body);
      }));
  }
}

test('writeError after the headers went out ends the response instead of throwing', () =>
  withServer(
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
      writeError(res, new ListError('invalid_cursor', 'bad'));
    },
    async (url) => {
      const res = await fetch(url);
      assert.is(res.status, 200);
      assert.is(await res.text(), 'partial');
    },
  ));

test.run();
