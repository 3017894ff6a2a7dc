import type { EntityManager } from '@mikro-orm/core';
import type { BoundSchema } from '../bind/types.ts';
import { dialectFor } from '../dialect/index.ts';
import type { ParsedQuery } from '../syntax/ast.ts';
import { type Admission, admitted } from './admission.ts';
import { admissionFor } from './admission-settings.ts';
import { weighRequest } from './admission-weight.ts';
import type { EngineSettings, ListContext } from './config.ts';
import type { Page } from './page/list-page.ts';
import { connectionsOf } from './request-work.ts';
import type { Scope } from './scope.ts';
import type { Item } from './serialize.ts';
import { itemsOf } from './walk/items.ts';
import { type IterateOptions, itemsPageSize, iterateItems, iteratePages, readsAhead } from './walk/iterate.ts';

/** How one engine's requests take their turns: list() one turn per request, pages() and items() one per page. */
export interface EngineAdmission<C extends ListContext> {
  /** The admission the engine shares with the ORM's other engines of the same settings; undefined when off. */
  readonly admission: Admission | undefined;
  /** Run one request inside a turn of its weight (released on success, error and abort). */
  run<T>(parsed: ParsedQuery, ctx: C | undefined, work: (parsed: ParsedQuery) => Promise<T>): Promise<T>;
  /** pages(): the walk with a turn per page. */
  pages(scope: Scope<C>, parse: () => ParsedQuery, ctx: C | undefined, options?: IterateOptions): AsyncGenerator<Page>;
  /** items(): the walk with a turn per page. */
  items(scope: Scope<C>, parse: () => ParsedQuery, ctx: C | undefined, options?: IterateOptions): AsyncGenerator<Item>;
}

/**
 * Set up the admission of an engine (`config.admission`, checked here: it needs the ORM's pool size). The walks
 * hold a turn per page, never for their whole life: a walk consumed slowly (an export to a slow client) holds no slot
 * while its consumer works, and a long walk cannot keep cheap requests, or other walks, out.
 */
export function engineAdmission<C extends ListContext>(
  em: EntityManager,
  option: unknown,
  settings: EngineSettings<C>,
  bound: BoundSchema,
): EngineAdmission<C> {
  const admission = admissionFor(em, option);
  // Nested levels, or a count beside its page, run side by side on PostgreSQL and MariaDB: a request takes a slot per
  // connection it may hold.
  const inProcess = dialectFor(em.getPlatform()).inProcess;
  const lanes = (parsed: ParsedQuery) => connectionsOf(parsed, inProcess);
  // A walk's page: its pageSize, else the request's limit, else items()' default (itemsPageSize) or pages()' maxLimit.
  const walk = (
    scope: Scope<C>,
    parse: () => ParsedQuery,
    ctx: C | undefined,
    options: IterateOptions,
    items: boolean,
  ) =>
    admittedPages(
      admission!,
      ctx?.signal,
      parse,
      (parsed) => {
        const rows = options.pageSize ?? parsed.limit ?? (items ? itemsPageSize(parsed) : settings.paging.maxLimit);
        return weighRequest(settings, bound, parsed, rows);
      },
      (again) => iteratePages(scope, again, ctx ?? ({} as C), options, items ? itemsPageSize : undefined),
      lanes,
    );
  return Object.freeze({
    admission,
    run: <T>(parsed: ParsedQuery, ctx: C | undefined, work: (parsed: ParsedQuery) => Promise<T>) =>
      admission
        ? admitted(admission, weighRequest(settings, bound, parsed), ctx?.signal, () => work(parsed), lanes(parsed))
        : work(parsed),
    pages: (scope: Scope<C>, parse: () => ParsedQuery, ctx: C | undefined, options: IterateOptions = {}) =>
      admission ? walk(scope, parse, ctx, options, false) : iteratePages(scope, parse, ctx ?? ({} as C), options),
    items: (scope: Scope<C>, parse: () => ParsedQuery, ctx: C | undefined, options: IterateOptions = {}) =>
      admission
        ? itemsOf(walk(scope, parse, ctx, options, true), readsAhead(scope))
        : iterateItems(scope, parse, ctx ?? ({} as C), options),
  });
}

/**
 * Walk the pages of `open(parse)` with a turn per page: each page (the first with its count) is read inside a turn
 * and the turn is given back before the page reaches the consumer. The request is parsed on the first next(), as
 * the walk itself does, so a client error is a rejection.
 */
async function* admittedPages(
  admission: Admission,
  signal: AbortSignal | undefined,
  parse: () => ParsedQuery,
  weigh: (parsed: ParsedQuery) => number | undefined,
  open: (parse: () => ParsedQuery) => AsyncGenerator<Page, void, undefined>,
  slots: (parsed: ParsedQuery) => number,
): AsyncGenerator<Page, void, undefined> {
  const parsed = parse();
  const held = slots(parsed);
  // A walk refuses `offset` before any statement: let it say so rather than wait for a turn first.
  const weight = parsed.offset === undefined ? weigh(parsed) : undefined;
  const pages = open(() => parsed);
  try {
    for (;;) {
      const release = weight === undefined ? undefined : await admission.enter(weight, signal, held);
      let step: IteratorResult<Page, void>;
      try {
        step = await pages.next();
      } finally {
        release?.();
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    await pages.return(undefined);
  }
}
