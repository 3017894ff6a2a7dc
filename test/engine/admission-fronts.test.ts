/**
 * `overloaded` at the front doors, over SQLite, PostgreSQL and MariaDB: every HTTP adapter (Express, Fastify, Koa,
 * Hono) on a real server answers 503 with the public error and a `Retry-After` header, logs nothing for it, and still
 * answers a cheap request while the expensive share is full; errorResponse()/writeError() and the NestJS filter send
 * the header too; a GraphQL document is admitted once for all its list fields, refused with one error carrying
 * `extensions.retryAfter`, and gives its turn back whatever its fields did.
 */
import type { ServerResponse } from 'node:http';
import type { EntityManager } from '@mikro-orm/core';
import type { ArgumentsHost } from '@nestjs/common';
import { graphql } from 'graphql';
import * as assert from 'uvu/assert';
import { Book, ENTITIES } from '../../examples/bookstore/entities.ts';
import { bookPolicy } from '../../examples/bookstore/policies.ts';
import { seed } from '../../examples/bookstore/seed.ts';
import type { Release } from '../../src/engine/admission.ts';
import { admissionOf } from '../../src/engine/admission-weight.ts';
import { overloaded } from '../../src/errors.ts';
import { graphqlSchema } from '../../src/graphql/index.ts';
import { createEngine, errorResponse, writeError } from '../../src/index.ts';
import { ListErrorFilter } from '../../src/nestjs/index.ts';
import { captureDriver } from '../helpers/capture.ts';
import { eachDialect } from '../helpers/db.ts';
import { ADAPTERS } from '../http-servers.ts';

const EXPENSIVE = `?filter=${encodeURIComponent('reviews/any(r: r/stars gt 0)')}&count=true`;
const SETTINGS = { maxExpensive: 1, queue: 0, retryAfter: 4 };

function books(em: EntityManager) {
  return (em.fork() as unknown as { createQueryBuilder(e: unknown, a: string): any })
    .createQueryBuilder(Book, 'b')
    .where({ tenant: 1 });
}

/** A Node response that records what is written to it. */
function nodeResponse() {
  const headers: Record<string, string | number> = {};
  const res = {
    statusCode: 200,
    headersSent: false,
    body: '',
    headers,
    setHeader(name: string, value: string | number) {
      headers[name.toLowerCase()] = value;
    },
    end(chunk?: string) {
      res.body = chunk ?? '';
    },
  };
  return res;
}

eachDialect('admission at the front doors', { entities: ENTITIES, seed }, (test) => {
  test('every HTTP adapter: 503 overloaded with Retry-After, nothing logged; a cheap request still answers', async ({
    em,
  }) => {
    const engine = createEngine(em, { policy: bookPolicy, allowCount: true, admission: SETTINGS });
    const admission = admissionOf(engine)!;
    for (const adapter of ADAPTERS) {
      const logged: unknown[] = [];
      const server = await adapter.start(engine, () => ({ base: books(em) }), {
        onInternalError: (e) => logged.push(e),
      });
      const hold: Release = await admission.enter(99);
      try {
        const refused = await fetch(`${server.url}/stock${EXPENSIVE}`);
        assert.is(refused.status, 503, adapter.name);
        assert.is(refused.headers.get('retry-after'), '4', adapter.name);
        assert.match(refused.headers.get('content-type') ?? '', /^application\/json/);
        const body = (await refused.json()) as Record<string, unknown>;
        assert.equal(Object.keys(body), ['code', 'message']);
        assert.is(body.code, 'overloaded');
        const cheap = await fetch(`${server.url}/stock?limit=2`);
        assert.is(cheap.status, 200, `${adapter.name}: cheap requests pass a full expensive share`);
        assert.is(cheap.headers.get('retry-after'), null);
        assert.is(((await cheap.json()) as { items: unknown[] }).items.length, 2);
      } finally {
        hold();
        await server.close();
      }
      const answered = await fetch(`${server.url}/stock${EXPENSIVE}`).catch(() => undefined);
      assert.is(answered, undefined, 'closed');
      assert.equal(logged, [], `${adapter.name}: a refusal under load is not an internal error`);
    }
    assert.equal(admission.stats().expensive, { running: 0, queued: 0 });
  });

  test('errorResponse, writeError and the NestJS filter send Retry-After; other errors send no header', () => {
    const error = overloaded('the server is busy', 6);
    assert.equal(errorResponse(error), {
      status: 503,
      body: { code: 'overloaded', message: 'the server is busy' },
      headers: { 'retry-after': '6' },
    });
    assert.is(errorResponse(new Error('x')).headers, undefined);
    const res = nodeResponse();
    writeError(res, error);
    assert.equal([res.statusCode, res.headers['retry-after'], JSON.parse(res.body).code], [503, '6', 'overloaded']);

    const logged: unknown[] = [];
    const filter = new ListErrorFilter({ onInternalError: (e) => logged.push(e) });
    const hostOf = (response: object) =>
      ({ switchToHttp: () => ({ getResponse: () => response }) }) as unknown as ArgumentsHost;
    const express = nodeResponse();
    filter.catch(error, hostOf(express as unknown as ServerResponse));
    assert.equal([express.statusCode, express.headers['retry-after']], [503, '6']);
    const sent: Record<string, string> = {};
    const reply = {
      raw: nodeResponse(),
      sent: false,
      status: 0,
      code(status: number) {
        reply.status = status;
        return reply;
      },
      header(name: string, value: string) {
        sent[name.toLowerCase()] = value;
        return reply;
      },
      send() {},
    };
    filter.catch(error, hostOf(reply));
    assert.equal([reply.status, sent['retry-after']], [503, '6']);
    assert.equal(logged, []);
  });

  test('GraphQL: a document is admitted once for all its list fields; refused, one error with retryAfter', async ({
    em,
  }) => {
    const engine = createEngine(em, { policy: bookPolicy, allowCount: true, admission: { ...SETTINGS, queue: 1 } });
    const admission = admissionOf(engine)!;
    const schema = graphqlSchema({
      endpoints: [{ field: 'books', type: 'Book', engine, scope: () => ({ base: books(em) }) }],
    });
    const field = 'books(filter: "reviews/any(r: r/stars gt 0)", first: 2) { totalCount nodes { id } }';
    const expensive = `{ a: ${field} b: ${field} }`;
    const run = (source: string, contextValue: object = {}) =>
      graphql({ schema, source, contextValue }) as Promise<any>;

    // The expensive share is held and its queue taken: the document is refused, once, before any statement.
    const hold = await admission.enter(99);
    const waiting = admission.enter(99);
    waiting.catch(() => {});
    const { result: refused, calls } = await captureDriver(() => run(expensive));
    assert.is(calls.length, 0);
    assert.equal({ ...refused.data }, { a: null, b: null });
    assert.is(refused.errors?.length, 1);
    assert.equal({ ...refused.errors[0].extensions }, { code: 'overloaded', retryAfter: 4 });
    // A cheap document passes meanwhile.
    const cheap = await run('{ books(first: 2) { nodes { id } } }');
    assert.is(cheap.errors, undefined);
    assert.is(cheap.data.books.nodes.length, 2);
    hold();
    (await waiting)();

    // Admitted: both fields run inside one turn, given back when the last one ends.
    const seen: number[] = [];
    const observed = graphqlSchema({
      endpoints: [
        {
          field: 'books',
          type: 'Book',
          engine,
          scope: () => {
            seen.push(admission.stats().expensive.running);
            return { base: books(em) };
          },
        },
      ],
    });
    const answered = (await graphql({ schema: observed, source: expensive, contextValue: {} })) as any;
    assert.is(answered.errors, undefined, JSON.stringify(answered.errors));
    assert.equal([answered.data.a.nodes.length, answered.data.b.nodes.length], [2, 2]);
    assert.equal(seen, [1, 1], 'one turn (one slot: maxExpensive) for both fields');
    assert.equal(admission.stats().expensive, { running: 0, queued: 0 });

    // A document waiting in the queue and aborted there gives nothing back twice and holds nothing.
    const again = await admission.enter(99);
    const controller = new AbortController();
    const aborted = run(expensive, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(admission.stats().expensive, { running: 1, queued: 1 });
    controller.abort(new Error('client went away'));
    const gone = await aborted;
    assert.equal({ ...gone.data }, { a: null, b: null });
    again();
    assert.equal(admission.stats().expensive, { running: 0, queued: 0 });
    // And a document whose field fails (an unknown field in its filter) still gives its turn back.
    const failed = await run(`{ a: ${field} b: books(filter: "nope eq 1", first: 1) { nodes { id } } }`);
    assert.is(failed.errors?.[0]?.extensions?.code, 'unknown_field');
    assert.equal(admission.stats().expensive, { running: 0, queued: 0 });
  });
});
