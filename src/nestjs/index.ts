// listql for NestJS (docs/nestjs.md): re-exports only.
export { ListErrorFilter, type ListErrorFilterOptions } from './error-filter.ts';
export { ListJsonInterceptor } from './json-interceptor.ts';
export { ListRoute } from './list-route.ts';
export { type EngineDefinition, getEngineToken, InjectEngine, ListqlModule } from './module.ts';
export { ListQuery, ListSignal } from './params.ts';
