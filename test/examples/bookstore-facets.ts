/**
 * The bookstore's facets (docs/facets.md) as its clients get them, restated from the seed (examples/bookstore/seed.ts):
 * tenant 1's live books 1–8 by author (Le Guin 1, 2, 3; Calvino 4, 5; Morrison 6, 7; Lem 8), publisher (Penguin 1, 2,
 * 4; Faber 3, 6, 7; none 5, 8) and tag (classic 1, 3, 4, 6; science-fiction 1, 2, 8; fantasy 3); tenant 2's books
 * 10–12 (Ende 10, 11; Wolf 12; fantasy 10, 11; classic 11). Read by bookstore.test.ts on every database.
 */

/** A request to `/books` and the answer it must give, whole. */
export interface FacetRow {
  readonly name: string;
  readonly query: Record<string, string>;
  readonly tenant?: string;
  readonly status?: number;
  readonly body: unknown;
}

const bucket = (value: unknown, count: number, label?: string | null) =>
  label === undefined ? { value, count } : { value, label, count };
const LE_GUIN = 'Ursula K. Le Guin';
const EMPTY_PAGE = { items: [], page: { limit: 0, offset: 0, hasMore: false } };

export const FACET_ROWS: readonly FacetRow[] = [
  {
    name: 'every facet of the example, counts of the live books only (book 9 is deleted), a NULL publisher bucket',
    query: { facets: 'author,year:3,tags,publisher', limit: '0' },
    body: {
      ...EMPTY_PAGE,
      facets: {
        author: [
          bucket(1, 3, LE_GUIN),
          bucket(2, 2, 'Italo Calvino'),
          bucket(3, 2, 'Toni Morrison'),
          bucket(4, 1, 'Stanisław Lem'),
        ],
        // All years hold one book: the three lowest values.
        year: [bucket(1961, 1), bucket(1968, 1), bucket(1969, 1)],
        tags: [bucket(1, 4, 'classic'), bucket(2, 3, 'science-fiction'), bucket(3, 1, 'fantasy')],
        publisher: [bucket(1, 3, 'Penguin'), bucket(2, 3, 'Faber'), bucket(null, 2, null)],
      },
    },
  },
  {
    name: 'cross-filtered: each facet counts under the filter without its own clauses, the page under all of it',
    query: {
      filter: `year gt 1968 and author/name eq '${LE_GUIN}'`,
      facets: 'year,author,tags',
      fields: 'title',
    },
    body: {
      items: [
        { id: 1, title: 'The Left Hand of Darkness' },
        { id: 2, title: 'The Dispossessed' },
      ],
      page: { limit: 20, offset: 0, hasMore: false },
      facets: {
        // Le Guin's books, whatever their year.
        year: [bucket(1968, 1), bucket(1969, 1), bucket(1974, 1)],
        // The books after 1968, whoever wrote them.
        author: [bucket(1, 2, LE_GUIN), bucket(2, 2, 'Italo Calvino'), bucket(3, 2, 'Toni Morrison')],
        tags: [bucket(2, 2, 'science-fiction'), bucket(1, 1, 'classic')],
      },
    },
  },
  {
    name: "tenant 2's facets count its own books only (tags are shared by both tenants)",
    query: { facets: 'tags,author', limit: '0' },
    tenant: '2',
    body: {
      ...EMPTY_PAGE,
      facets: {
        tags: [bucket(3, 2, 'fantasy'), bucket(1, 1, 'classic')],
        author: [bucket(6, 2, 'Michael Ende'), bucket(7, 1, 'Christa Wolf')],
      },
    },
  },
  {
    name: 'a misspelt facet: unknown_field at its byte, with the facet it resembles',
    query: { facets: 'year, autor' },
    status: 400,
    body: {
      code: 'unknown_field',
      message: "unknown field 'autor'; did you mean 'author'?",
      parameter: 'facets',
      position: { offset: 6, line: 1, column: 7 },
    },
  },
  {
    name: 'a field the policy does not open to facets: field_not_facetable',
    query: { facets: 'author,title' },
    status: 400,
    body: {
      code: 'field_not_facetable',
      message: "'title' is not open to facets",
      parameter: 'facets',
      position: { offset: 7, line: 1, column: 8 },
    },
  },
];
