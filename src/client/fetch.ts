import type { Page } from '../engine/page/list-page.ts';
import type { ErrorCode, Position } from '../errors.ts';
import type { ListRequest } from './request.ts';

/** What the client needs of `fetch`: the global one (browsers, Node, Deno, Bun) fits, and so does a wrapper of it. */
export type FetchLike = (
  url: string,
  init: { readonly method: 'GET'; readonly headers: Record<string, string>; readonly signal?: AbortSignal },
) => Promise<ResponseLike>;

/** What the client reads of a response. */
export interface ResponseLike {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  json(): Promise<unknown>;
}

/** Options of listClient(). */
export interface ListClientOptions {
  /** The fetch to send requests with; by default the global `fetch`, looked up at each request. */
  readonly fetch?: FetchLike;
  /** Headers sent with every request (an authorization, a tenant). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Options of one call: an abort signal, and headers added to the client's. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The items of the pages a request answers with. */
export type ItemsOf<R> = R extends { readonly '~item'?: infer I } ? NonNullable<I> : never;

/**
 * The error of a response that is not a page: the server's `code` (listql's error codes, `internal_error`, or an
 * application's own), its `message`, the `parameter` and the `position` (zero-based UTF-8 byte `offset`, 1-based
 * `line` and `column` in the parameter's decoded value) when the server gave them, the HTTP `status`, and for
 * `overloaded` the seconds to wait (`retryAfter`). A response without a JSON error body has the code
 * `unexpected_response`.
 */
export class ListClientError extends Error {
  override readonly name = 'ListClientError';
  readonly status: number;
  readonly code: ErrorCode | 'internal_error' | 'unexpected_response' | (string & Record<never, never>);
  declare readonly parameter?: string;
  declare readonly position?: Position;
  declare readonly retryAfter?: number;

  constructor(status: number, body: unknown, retryAfter?: string | null) {
    const json = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const known = typeof json.code === 'string' && typeof json.message === 'string';
    super(known ? (json.message as string) : `unexpected response (HTTP ${status})`);
    this.status = status;
    this.code = known ? (json.code as string) : 'unexpected_response';
    const extra: { parameter?: string; position?: Position; retryAfter?: number } = {};
    if (known && typeof json.parameter === 'string') extra.parameter = json.parameter;
    if (known && typeof json.position === 'object' && json.position !== null)
      extra.position = json.position as Position;
    if (retryAfter && /^\d+$/.test(retryAfter)) extra.retryAfter = Number(retryAfter);
    Object.assign(this, extra);
  }
}

/** Sends list requests to one endpoint and reads their pages. */
export interface ListClient {
  /** One page of the request. Throws ListClientError for an error response; a network failure rejects as fetch does. */
  list<R extends ListRequest<any, any>>(request: R, options?: CallOptions): Promise<Page<ItemsOf<R>>>;
  /** The request's page, then each following page by its `nextCursor`, until one has no more. */
  pages<R extends ListRequest<any, any>>(request: R, options?: CallOptions): AsyncGenerator<Page<ItemsOf<R>>, void>;
  /** The items of every page of `pages()`, one by one. */
  items<R extends ListRequest<any, any>>(request: R, options?: CallOptions): AsyncGenerator<ItemsOf<R>, void>;
}

/**
 * A client of one list endpoint (`https://api.example.com/books`): sends a request built with `client()` as a GET
 * with its query string, and returns typed pages; `pages()` and `items()` walk the cursors.
 *
 * @example for await (const book of listClient('/books').items(books.fields('title').limit(50))) show(book.title);
 */
export function listClient(url: string | URL, options: ListClientOptions = {}): ListClient {
  const base = String(url);
  const list = async (request: ListRequest<any, any>, call: CallOptions = {}): Promise<Page<any>> => {
    const query = request.toString();
    const target = query === '' ? base : `${base}${base.includes('?') ? '&' : '?'}${query}`;
    const send = options.fetch ?? (globalThis.fetch as FetchLike);
    const headers = { accept: 'application/json', ...options.headers, ...call.headers };
    const response = await send(target, { method: 'GET', headers, ...(call.signal ? { signal: call.signal } : {}) });
    const body = await response.json().catch(() => undefined);
    if (!response.ok || typeof body !== 'object' || body === null || !Array.isArray((body as Page).items))
      throw new ListClientError(response.status, response.ok ? undefined : body, response.headers.get('retry-after'));
    return body as Page<any>;
  };
  async function* pages(request: ListRequest<any, any>, call?: CallOptions): AsyncGenerator<Page<any>, void> {
    for (let next = request; ; ) {
      const page = await list(next, call);
      yield page;
      const cursor = page.page?.nextCursor;
      if (!page.page?.hasMore || cursor === undefined) return;
      next = next.cursor(cursor);
    }
  }
  async function* items(request: ListRequest<any, any>, call?: CallOptions): AsyncGenerator<unknown, void> {
    for await (const page of pages(request, call)) yield* page.items;
  }
  return { list, pages, items } as ListClient;
}
