/**
 * The exception filter of list routes: a ListError is answered with errorResponse()'s status and public JSON,
 * a Nest HttpException keeps Nest's own answer, and anything else is listql's bare 500 `internal_error`.
 */
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import { isListError } from '../errors.ts';
import { errorResponse, stringifyJSON } from '../http/errors.ts';
import type { PlatformResponse } from './http-objects.ts';
import { sendJSONText } from './http-objects.ts';
import { knownSignal } from './params.ts';

/** Options of ListErrorFilter. */
export interface ListErrorFilterOptions {
  /**
   * Called with the original error of every 500 response, whose body says only `internal_error`, except when
   * the client disconnected first. Defaults to `console.error`; pass `() => {}` to silence it.
   */
  readonly onInternalError?: (err: unknown) => void;
}

/**
 * Answer errors thrown by list routes (and by `@ListQuery()`) as listql's JSON error responses. Bind it to a
 * controller (`@UseFilters(ListErrorFilter)`), a route, or the whole app (`app.useGlobalFilters(new ListErrorFilter())`).
 */
export class ListErrorFilter implements ExceptionFilter {
  readonly #onInternalError: (err: unknown) => void;

  /** Create the filter; Nest calls it with no options when the filter is bound by its class. */
  constructor(options: ListErrorFilterOptions = {}) {
    this.#onInternalError = options.onInternalError ?? logInternalError;
  }

  /** Write the error response for `exception` to the HTTP response of `host`. */
  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<PlatformResponse>();
    if (exception instanceof HttpException) {
      // The application's own deliberate answer (a guard's 401, a 404): kept as Nest would write it.
      const status = exception.getStatus();
      const body = exception.getResponse();
      sendJSONText(res, status, stringifyJSON(typeof body === 'string' ? { statusCode: status, message: body } : body));
      return;
    }
    const { status, body, headers } = errorResponse(exception);
    // A client that went away is not a server fault: its aborted query is not logged. Nor is a refusal under load.
    const shed = isListError(exception) && exception.code === 'overloaded';
    if (status >= 500 && knownSignal(res)?.aborted !== true && !shed) this.#onInternalError(exception);
    sendJSONText(res, status, stringifyJSON(body), headers);
  }
}

// Without the decorator syntax: Node strips types and runs no decorator transform.
Catch()(ListErrorFilter);

function logInternalError(err: unknown): void {
  console.error('listql: internal error while listing', err);
}
