/**
 * ListRoute(): the one decorator a list route (or a controller of list routes) needs, binding ListErrorFilter and
 * ListJsonInterceptor.
 */
import { applyDecorators, UseFilters, UseInterceptors } from '@nestjs/common';
import { ListErrorFilter, type ListErrorFilterOptions } from './error-filter.ts';
import { ListJsonInterceptor } from './json-interceptor.ts';

/**
 * Answer a route's (or a controller's) errors as listql's JSON error responses and its page as listql's JSON.
 *
 * @example @Controller('books') @ListRoute({ onInternalError: (err) => logger.error(err) }) export class BooksController {}
 */
export function ListRoute(options: ListErrorFilterOptions = {}): ClassDecorator & MethodDecorator {
  return applyDecorators(UseFilters(new ListErrorFilter(options)), UseInterceptors(ListJsonInterceptor));
}
