export type * from './ast.ts';
export { parseFilter } from './filter.ts';
export type { KnownParameter, QueryValues } from './parameters.ts';
export { isKnownParameter, KNOWN_PARAMETERS } from './parameters.ts';
export type { ParseOptions } from './parse-http.ts';
export { parseHTTP } from './parse-http.ts';
export { parseSort } from './sort.ts';
