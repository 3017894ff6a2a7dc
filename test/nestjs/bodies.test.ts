/**
 * The request-body bounds docs/nestjs.md documents, on a real Nest app at 127.0.0.1 on both platforms: Nest's own
 * parsers refuse a JSON body over their default (Express 100 KiB, Fastify 1 MiB) with 413, a limit set by
 * `useBodyParser` (Express) or `bodyLimit` (Fastify) moves that bound, and a 600 MB body is refused without the
 * process's memory growing with it. No database: no body reaches one.
 */
import { Body, Controller, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { upload } from '../helpers/upload.ts';

const MIB = 1024 * 1024;

// Node strips types and runs no decorator transform: the decorators are applied as plain functions.
class EchoController {
  echo(body: { a: string }): { length: number } {
    return { length: body.a.length };
  }
}
Body()(EchoController.prototype, 'echo', 0);
Post('echo')(EchoController.prototype, 'echo', Object.getOwnPropertyDescriptor(EchoController.prototype, 'echo')!);
Controller()(EchoController);
class EchoModule {}
Module({ controllers: [EchoController] })(EchoModule);

/** Start the app on `platform`, with the body limit given (or the platform's default), and return its URL. */
async function start(platform: 'express' | 'fastify', limit?: number) {
  const app =
    platform === 'express'
      ? await NestFactory.create<NestExpressApplication>(EchoModule, new ExpressAdapter(), { logger: false })
      : await NestFactory.create(EchoModule, new FastifyAdapter(limit === undefined ? {} : { bodyLimit: limit }), {
          logger: false,
        });
  if (platform === 'express' && limit !== undefined) (app as NestExpressApplication).useBodyParser('json', { limit });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { url: `${url}/echo`, close: () => app.close() };
}

/** A JSON body of about `bytes` bytes. */
const json = (bytes: number) => Buffer.from(JSON.stringify({ a: 'x'.repeat(bytes - 8) }));
const HEADERS = { 'content-type': 'application/json' };

for (const [platform, defaultLimit] of [
  ['express', 100 * 1024],
  ['fastify', MIB],
] as const) {
  const test = suite(`nestjs request bodies [${platform}]`);

  test(`the default bound: ${defaultLimit} bytes pass, more gets 413; a 600 MB body leaves memory flat`, async () => {
    const app = await start(platform);
    try {
      assert.is((await upload(app.url, { headers: HEADERS, body: json(defaultLimit) })).status, 201);
      const over = await upload(app.url, { headers: HEADERS, body: json(defaultLimit + 1) });
      assert.is(over.status, 413, over.body);
      const before = process.memoryUsage().rss;
      const huge = await upload(app.url, { headers: HEADERS, body: 600 * MIB, contentLength: false });
      assert.is(huge.status, 413, `${huge.error} after ${huge.sent} bytes`);
      const grown = process.memoryUsage().rss - before;
      // Buffering the body would grow by 600 MiB; what stays is garbage the collector has not yet taken.
      assert.ok(grown < 256 * MIB, `RSS grew by ${Math.round(grown / MIB)} MiB`);
    } finally {
      await app.close();
    }
  });

  test('a limit of 8 KiB set as documented moves the bound', async () => {
    const app = await start(platform, 8 * 1024);
    try {
      assert.is((await upload(app.url, { headers: HEADERS, body: json(8 * 1024) })).status, 201);
      assert.is((await upload(app.url, { headers: HEADERS, body: json(8 * 1024 + 1) })).status, 413);
    } finally {
      await app.close();
    }
  });

  test.run();
}
