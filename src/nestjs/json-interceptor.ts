/**
 * The interceptor of list routes: the page a route returns is written as listql's JSON, the same bytes the other
 * adapters send (a bigint as its decimal string, where Nest's own JSON.stringify would throw).
 */
import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { map, type Observable } from 'rxjs';
import { stringifyJSON } from '../http/errors.ts';
import { type PlatformResponse, setJSONContentType } from './http-objects.ts';

/** Serialize what a list route returns with listql's JSON rules, under listql's JSON content type. */
export class ListJsonInterceptor implements NestInterceptor {
  /** Map the route's value to its JSON text; a value JSON cannot hold throws here, and so answers 500. */
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<string> {
    const res = ctx.switchToHttp().getResponse<PlatformResponse>();
    return next.handle().pipe(
      map((value: unknown) => {
        const text = stringifyJSON(value);
        // A string body keeps a content type set beforehand, on Express and on Fastify.
        setJSONContentType(res);
        return text;
      }),
    );
  }
}
