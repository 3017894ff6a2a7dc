/**
 * The benches' HTTP client: `node:http` with one keep-alive agent, so that every side of a comparison is asked the
 * same way (a socket per server, reused request after request; a GET, or a POST of a JSON body). Node's `fetch`
 * spends about 0.1 ms more on a POST with a body than on a GET whatever the server does, which would tilt a
 * comparison against every GraphQL side; `BENCH_CLIENT=fetch` asks with `fetch` instead.
 */
import { Agent, request } from 'node:http';

/** A status and a parsed JSON body. */
export interface Reply {
  readonly status: number;
  readonly body: any;
}

/** One keep-alive agent for all the servers. */
const agent = new Agent({ keepAlive: true });

/** GET `url`, or POST `body` as JSON to it, with node:http (or fetch when BENCH_CLIENT=fetch). */
export function send(url: string, body?: unknown): Promise<Reply> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return process.env.BENCH_CLIENT === 'fetch' ? sendByFetch(url, text) : sendByHttp(url, text);
}

function sendByHttp(url: string, text: string | undefined): Promise<Reply> {
  const headers: Record<string, string | number> = { accept: 'application/json' };
  if (text !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(text);
  }
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, method: text === undefined ? 'GET' : 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

async function sendByFetch(url: string, text: string | undefined): Promise<Reply> {
  const res = await fetch(
    url,
    text === undefined
      ? { headers: { accept: 'application/json' } }
      : { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: text },
  );
  return { status: res.status, body: await res.json() };
}

/** Close the agent's idle sockets (at the end of a bench). */
export function closeClient(): void {
  agent.destroy();
}
