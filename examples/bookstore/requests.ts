/**
 * The example requests `npm start` prints, as data: the test runs exactly these against the server.
 */

/** One example request: a path, its query parameters in order, and optional headers. */
export interface ExampleRequest {
  readonly title: string;
  readonly path: string;
  readonly params: readonly (readonly [name: string, value: string])[];
  readonly headers?: Readonly<Record<string, string>>;
}

/** The examples printed at start-up; the cursor example needs the `nextCursor` of the one before it. */
export function exampleRequests(nextCursor: string): ExampleRequest[] {
  return [
    {
      title: 'filter and sort: books under 15 published since 1970, most expensive first',
      path: '/books',
      params: [
        ['filter', 'price lt 15 and year gte 1970'],
        ['sort', '-price'],
      ],
    },
    {
      title: 'a to-one relationship: books by one author, oldest first',
      path: '/books',
      params: [
        ['filter', "author/name eq 'Ursula K. Le Guin'"],
        ['sort', 'year'],
      ],
    },
    {
      title: 'a to-many relationship and the total: books with a live review of 4 stars or more',
      path: '/books',
      params: [
        ['filter', 'reviews/any(r: r/stars gte 4)'],
        ['sort', 'title'],
        ['count', 'true'],
      ],
    },
    {
      title: 'keyset pages: the newest books, three at a time',
      path: '/books',
      params: [
        ['sort', '-year'],
        ['limit', '3'],
      ],
    },
    {
      title: 'the next page: pass nextCursor back with the same sort',
      path: '/books',
      params: [
        ['sort', '-year'],
        ['limit', '3'],
        ['cursor', nextCursor],
      ],
    },
    {
      title: 'nested selection: each author with their books, oldest first, and how many there are',
      path: '/authors',
      params: [
        ['fields', 'name,books(title,year)'],
        ['sort', 'name'],
        ['books.count', 'true'],
      ],
    },
  ];
}

/** The bonus example: search, under the other tenant (chosen by the `x-tenant` header). */
export const TENANT_SEARCH: ExampleRequest = {
  title: "search, as tenant 2: titles containing 'story'",
  path: '/books',
  params: [['search', 'story']],
  headers: { 'x-tenant': '2' },
};

/** Build the URL of an example on a server. */
export function exampleUrl(base: string, request: ExampleRequest): string {
  const url = new URL(request.path, base);
  for (const [name, value] of request.params) url.searchParams.append(name, value);
  return url.toString();
}

/** Write an example as a curl command line (values URL-encoded by curl itself, so they stay readable). */
export function curlCommand(base: string, request: ExampleRequest): string {
  const headers = Object.entries(request.headers ?? {}).map(([k, v]) => ` -H '${k}: ${v}'`);
  const data = request.params.map(([name, value]) => ` --data-urlencode "${name}=${value}"`);
  return `curl -sG${headers.join('')} ${new URL(request.path, base)}${data.join('')}`;
}
