import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';
import type { PgPool } from './cancel.ts';

/**
 * A page of a pages()/items() walk read past pg's `Query`: a submittable (an object pg's `Client.query()` queues and
 * drives as it drives its own Query) that sends the statement as Query sends one with values (parse, bind, describe
 * portal, execute, sync, in one write) and builds each row with the client's own type parsers, the ones Query's
 * Result uses, so the rows are the ones Query gives, with far less garbage promoted (docs/performance.md). It
 * settles exactly once: with the rows at ReadyForQuery (where pg takes the statement off the client), or with the
 * error pg hands it (the server's, the connection's end or failure, pg's `query_timeout`), and calls `callback`
 * (pg's wrapper when `query_timeout` is set) as Query does.
 */

/** pg's Client, the members the direct read uses. */
interface PgQueryClient {
  readonly processID?: number | null;
  readonly secretKey?: number | null;
  readonly binary?: unknown;
  readonly pipeline?: unknown;
  getTypeParser(oid: number, format: string): (text: string) => unknown;
  query(submittable: object): unknown;
}

/** pg's protocol connection, the messages a statement with values sends. */
interface PgWire {
  readonly stream: { cork?(): void; uncork?(): void };
  parse(message: { text: string; name: string; types: undefined }): void;
  bind(message: { portal: string; statement: string; values: readonly unknown[]; binary: boolean }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string; rows: undefined }): void;
  close(message: { type: 'S'; name: string }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

/** A column of the statement's row description. */
type FieldDescription = { readonly name: string; readonly dataTypeID: number; readonly format?: string };

type Parser = (text: string) => unknown;
type Settle = (failed: { readonly err: unknown } | undefined, result?: QueryResult<unknown>) => void;

/** The command tag's parts, as pg's Result reads them (`SELECT 5`, `INSERT 0 1`). */
const COMMAND_TAG = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/;

class WalkRead {
  /** Set by pg's `Client.query()` when the client has a `query_timeout`: called once, when the statement settles. */
  callback: ((err: unknown, result?: unknown) => void) | undefined = undefined;
  /** pg sets it on a binary client; such a client never gets here (directClient). */
  binary = false;
  /** The statement and its values as the caller gave them, named as pg's Query names them. */
  readonly text: string;
  readonly values: readonly unknown[];
  /** The values as they go on the wire (pg's prepareValue). */
  readonly #wire: readonly unknown[];
  readonly #client: PgQueryClient;
  #settle: Settle | undefined;
  #names: readonly string[] = [];
  #parsers: readonly Parser[] = [];
  #template: Record<string, unknown> = {};
  #rows: Record<string, unknown>[] = [];
  #affected: bigint | undefined = undefined;
  /** A type parser threw: the rows stop, and the statement fails with it once the server is done. */
  #failure: { readonly err: unknown } | undefined = undefined;

  constructor(client: PgQueryClient, query: CompiledQuery, wire: readonly unknown[], settle: Settle) {
    this.#client = client;
    this.text = query.sql;
    this.values = query.parameters;
    this.#wire = wire;
    this.#settle = settle;
  }

  submit(wire: PgWire): null {
    // One write for the five messages, as Query corks the stream around them.
    wire.stream.cork?.();
    try {
      wire.parse({ text: this.text, name: '', types: undefined });
      try {
        wire.bind({ portal: '', statement: '', values: this.#wire, binary: false });
      } catch (err) {
        wire.close({ type: 'S', name: '' });
        wire.sync();
        this.handleError(err);
        return null;
      }
      wire.describe({ type: 'P', name: '' });
      wire.execute({ portal: '', rows: undefined });
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { readonly fields: readonly FieldDescription[] }): void {
    const { fields } = message;
    this.#names = fields.map((field) => field.name);
    this.#parsers = fields.map((field) => this.#client.getTypeParser(field.dataTypeID, field.format || 'text'));
    // Own data members in the columns' order, as Query's rows have them (a column named __proto__ included).
    this.#template = Object.fromEntries(this.#names.map((name) => [name, null]));
  }

  handleDataRow(message: { readonly fields: readonly (string | null)[] }): void {
    if (this.#failure) return;
    const { fields } = message;
    const names = this.#names;
    const parsers = this.#parsers;
    const row: Record<string, unknown> = { ...this.#template };
    try {
      for (let i = 0; i < fields.length; i++) {
        const text = fields[i];
        if (text !== null && text !== undefined) row[names[i]!] = parsers[i]!(text);
      }
    } catch (err) {
      this.#failure = { err };
      return;
    }
    this.#rows.push(row);
  }

  handleCommandComplete(message: { readonly text?: string }): void {
    const tag = COMMAND_TAG.exec(message.text ?? '');
    const count = tag?.[3] ?? tag?.[2];
    const command = tag?.[1];
    // As Kysely's PostgreSQL connection reports them.
    if (count !== undefined && /^(?:INSERT|UPDATE|DELETE|MERGE)$/.test(command ?? '')) this.#affected = BigInt(count);
  }

  handleEmptyQuery(): void {}

  /** Never asked for (no row limit per execute); answered as Query would be. */
  handlePortalSuspended(wire: PgWire): void {
    wire.execute({ portal: '', rows: undefined });
    wire.sync();
  }

  handleCopyInResponse(wire: PgWire): void {
    wire.sendCopyFail('No source stream defined');
  }

  handleCopyData(): void {}

  /** The statement failed: the server's error, the connection's, pg's `query_timeout`, or a type parser's first. */
  handleError(err: unknown): void {
    const failure = this.#failure;
    this.#failure = undefined;
    this.#finish({ err: failure ? failure.err : err });
  }

  /** pg has taken the statement off the client: done, and the client may run the next one. */
  handleReadyForQuery(): void {
    if (this.#failure) this.handleError(this.#failure.err);
    else this.#finish(undefined);
  }

  #finish(failed: { readonly err: unknown } | undefined): void {
    const settle = this.#settle;
    if (!settle) return;
    this.#settle = undefined;
    const callback = this.callback;
    this.callback = undefined;
    // As Kysely's PostgreSQL connection gives it: numAffectedRows present, undefined for a select.
    const result = failed ? undefined : ({ numAffectedRows: this.#affected, rows: this.#rows } as QueryResult<unknown>);
    this.#rows = [];
    if (callback) {
      try {
        if (failed) callback(failed.err);
        else callback(null, result);
      } catch {
        // pg's own wrapper (query_timeout) only clears its timer; nothing of the statement's depends on it.
      }
    }
    settle(failed, result);
  }
}

/** The pg client each pooled connection runs on (null: none that the direct read may use), found once. */
const clients = new WeakMap<DatabaseConnection, PgQueryClient | null>();

/**
 * The pg client of `connection` (backend `pid`) when a walk's page may be read past pg's Query on it: the pool is
 * pg's, the client is the one lent out with that backend's process id, in text mode and not pipelining. Undefined
 * otherwise (pg's Query reads the page). The caller has checked that the pool's clients talk to PostgreSQL itself
 * (cancelsOnOwnSocket), so a process id names one client.
 */
export async function directClient(
  nativeClient: () => Promise<unknown> | undefined,
  connection: DatabaseConnection,
  pid: number | undefined,
): Promise<PgQueryClient | undefined> {
  const known = clients.get(connection);
  if (known !== undefined) return usable(known, pid);
  if (pid === undefined) return undefined;
  const pool = (await Promise.resolve(nativeClient()).catch(() => undefined)) as
    | (PgPool & { readonly _idle?: readonly { readonly client?: unknown }[] })
    | undefined;
  const found = pool?._clients?.filter((client) => client.processID === pid) ?? [];
  const client = found.length === 1 ? (found[0] as unknown as PgQueryClient) : undefined;
  // Lent out (not among the pool's idle clients): the one this connection holds.
  const lent = client && !pool?._idle?.some((idle) => idle.client === client);
  const fit =
    lent &&
    typeof client.query === 'function' &&
    typeof client.getTypeParser === 'function' &&
    typeof client.secretKey === 'number' &&
    !client.binary &&
    !client.pipeline;
  clients.set(connection, fit ? client : null);
  return fit ? usable(client, pid) : undefined;
}

function usable(client: PgQueryClient | null, pid: number | undefined): PgQueryClient | undefined {
  return client && client.processID === pid && pid !== undefined ? client : undefined;
}

/**
 * Read the statement's rows on `client`, or undefined (running nothing) when a value is not one pg's Query sends as
 * text the plain way (strings, numbers, booleans, bigints, null) or there are none (Query then sends a simple query).
 */
export function readDirect(client: PgQueryClient, query: CompiledQuery): Promise<QueryResult<unknown>> | undefined {
  const values = wireValues(query.parameters);
  if (!values) return undefined;
  return new Promise((resolve, reject) => {
    const read = new WalkRead(client, query, values, (failed, result) =>
      failed ? reject(failed.err) : resolve(result!),
    );
    try {
      client.query(read);
    } catch (err) {
      read.handleError(err);
    }
  });
}

/** The values as pg's `prepareValue` gives them for the wire, or undefined for any it maps another way. */
function wireValues(parameters: readonly unknown[]): unknown[] | undefined {
  if (parameters.length === 0) return undefined;
  const values = new Array<unknown>(parameters.length);
  for (let i = 0; i < parameters.length; i++) {
    const value = parameters[i];
    if (value === null || value === undefined) values[i] = null;
    else if (typeof value === 'string') values[i] = value;
    else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
      values[i] = value.toString();
    else return undefined;
  }
  return values;
}
