/**
 * Send a request body to a real server as a client would: all at once, or streamed in 1 MiB chunks (chunked when no
 * content-length is declared), stopping as soon as the server answers or cuts the connection. Also reads a process's
 * resident memory, to show that a server's memory did not grow with a body.
 */
import { readFileSync } from 'node:fs';
import { type ClientRequest, request } from 'node:http';

/** What came back: the status and body of the answer (if one came), and how many body bytes the client sent. */
export interface UploadResult {
  readonly status: number | undefined;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** Body bytes handed to the socket before the answer or the cut. */
  readonly sent: number;
  /** The socket error that ended the upload, if any (a server closing the connection mid-body). */
  readonly error: string | undefined;
}

/** How to send the body. */
export interface UploadOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** The body, or its size: a size streams that many bytes of spaces in 1 MiB chunks. */
  readonly body: Buffer | number;
  /** Declare the size in content-length (default); false streams it chunked, with no length. */
  readonly contentLength?: boolean;
}

const CHUNK = Buffer.alloc(1024 * 1024, ' ');

/** Send `options.body` to `url` and wait for the answer or the end of the connection. */
export function upload(url: string, options: UploadOptions): Promise<UploadResult> {
  const total = typeof options.body === 'number' ? options.body : options.body.length;
  const headers: Record<string, string> = { ...options.headers };
  // Explicit, as Node's client does not chunk a GET body by itself.
  if (options.contentLength === false) headers['transfer-encoding'] = 'chunked';
  else headers['content-length'] = String(total);
  return new Promise((resolve) => {
    let status: number | undefined;
    let resHeaders: UploadResult['headers'] = {};
    let body = '';
    let sent = 0;
    let done = false;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      req.destroy();
      resolve({ status, headers: resHeaders, body, sent, error });
    };
    const req = request(url, { method: options.method ?? 'POST', headers, agent: false });
    req.on('response', (res) => {
      status = res.statusCode;
      resHeaders = res.headers;
      res.setEncoding('utf8');
      res.on('data', (s: string) => (body += s));
      res.on('end', () => finish());
      res.on('error', (err) => finish(err.message));
    });
    req.on('error', (err) => {
      // An answer already read in full wins over the cut that followed it.
      if (status !== undefined) setTimeout(() => finish(err.message), 200);
      else finish(err.message);
    });
    const write = async () => {
      if (typeof options.body !== 'number') {
        sent = options.body.length;
        req.end(options.body);
        return;
      }
      while (!done && status === undefined && sent < total) {
        const chunk = total - sent >= CHUNK.length ? CHUNK : CHUNK.subarray(0, total - sent);
        sent += chunk.length;
        if (!req.write(chunk)) await drained(req);
      }
      if (!done && status === undefined) req.end();
    };
    void write();
  });
}

/** Wait until the request can take more, or is closed. */
function drained(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done).off('close', done);
      resolve();
    };
    req.on('drain', done).on('close', done);
  });
}

/** The resident memory of process `pid`, in bytes (Linux). */
export function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}
