/**
 * The request shapes bench/worst.ts tries against the default limits: fixed families (each at or near a limit) and
 * the mutations of its hill-climb. A shape of the `wide` endpoint is kept as parts (terms, connective, count, sort,
 * offset, continuation) so the climb can change one part at a time; the other endpoints' shapes are written out.
 */

/** The endpoints of the bench: the bookstore's books and authors, a deep policy, and a permissive one. */
export type Endpoint = 'books' | 'authors' | 'deep' | 'wide';

/** One candidate request: which endpoint, its query parameters, and whether it is timed as a continuation page. */
export interface Candidate {
  readonly label: string;
  readonly endpoint: Endpoint;
  readonly query: Record<string, string>;
  /**
   * Time the page after a cursor: the cursor is taken from the same sort without the filter (a cursor is bound to
   * the sort, not to the filter), after its first row, so the page reads nearly every row after it.
   */
  readonly continued?: boolean;
  /** The parts of a `wide` shape, for the hill-climb's mutations. */
  readonly shape?: Shape;
}

/** A quantifier term: `[not ]rel/any|all(v: inner joined by innerJoin)`. */
interface QuantifierTerm {
  readonly relation: 'reviews' | 'tags';
  readonly quantifier: 'any' | 'all';
  readonly negated: boolean;
  readonly inner: readonly string[];
  readonly innerJoin: 'or' | 'and';
}

/** A term of a `wide` filter: a root comparison (to-one paths included) or a quantifier. */
type Term = { readonly leaf: string } | QuantifierTerm;

/** A `wide` request as parts. */
export interface Shape {
  readonly terms: readonly Term[];
  readonly join: 'or' | 'and';
  readonly count: boolean;
  readonly sort?: 'relation' | 'nullable' | 'nullable-wide';
  readonly offset?: number;
  readonly limit: number;
  readonly continued: boolean;
}

/** Sorts of the `wide` endpoint: two relations (not seekable, every matching row ordered), and nullable root keys. */
const SORTS = {
  relation: 'author/name,-publisher/name,author/born,-year,title',
  nullable: 'rank,id',
  'nullable-wide': 'rank,-year,title,price',
} as const;

// Leaves that match nothing (so `or` evaluates every branch) and leaves that match everything (so `and` does).
const ROOT_LEAVES = [
  `title icontains 'zq'`,
  `title iendswith 'qz'`,
  `title ieq 'book zz'`,
  `title istartswith 'zz'`,
  `author/name icontains 'zq'`,
  `author/name iendswith 'qz'`,
  `publisher/name ieq 'zz'`,
  `title contains 'zq'`,
  `year gt 3000`,
  `rank lt -1`,
  `price lt 0`,
] as const;
const ROOT_TRUE = [`title ine 'zz'`, `year gt 0`, `title ne 'zz'`] as const;
const REVIEW_LEAVES = [
  `r/reviewer icontains 'zq'`,
  `r/reviewer iendswith 'qz'`,
  `r/reviewer istartswith 'zz'`,
  `r/reviewer ieq 'zz'`,
  `r/reviewer contains 'zq'`,
  `r/stars gt 99`,
] as const;
const REVIEW_TRUE = [`r/reviewer ine 'zz'`, `r/stars gt 0`, `r/stars lt 99`] as const;
const TAG_LEAVES = [`t/name icontains 'zq'`, `t/name ieq 'zz'`, `t/name eq 'zz'`] as const;
const TAG_TRUE = [`t/name ine 'zz'`, `t/name ne 'zz'`] as const;

function variable(term: QuantifierTerm): string {
  return term.relation === 'reviews' ? 'r' : 't';
}

function termText(term: Term): string {
  if ('leaf' in term) return term.leaf;
  const inner = term.inner.join(` ${term.innerJoin} `);
  return `${term.negated ? 'not ' : ''}${term.relation}/${term.quantifier}(${variable(term)}: ${inner})`;
}

/** The request a shape stands for. */
export function shapeCandidate(label: string, shape: Shape): Candidate {
  const query: Record<string, string> = { limit: String(shape.limit) };
  if (shape.terms.length > 0) query.filter = shape.terms.map(termText).join(` ${shape.join} `);
  if (shape.count) query.count = 'true';
  if (shape.sort) query.sort = SORTS[shape.sort];
  if (shape.offset) query.offset = String(shape.offset);
  return { label, endpoint: 'wide', query, continued: shape.continued, shape };
}

/** A short text naming a shape's parts, for the report. */
export function describeShape(shape: Shape): string {
  const quantifiers = shape.terms.filter((t) => !('leaf' in t)) as QuantifierTerm[];
  const inner = quantifiers.reduce((n, q) => n + q.inner.length, 0);
  const iops = (text: string) => (text.match(/ i(eq|ne|contains|startswith|endswith) /g) ?? []).length;
  const all = shape.terms.map(termText).join(' ');
  return [
    `${shape.terms.length} terms by ${shape.join}`,
    `${quantifiers.length} quantifiers (${inner} inner leaves)`,
    `${iops(all)} i-operators`,
    shape.count ? 'count' : '',
    shape.sort ? `${shape.sort} sort` : '',
    shape.offset ? `offset ${shape.offset}` : '',
    shape.continued ? 'page 2' : '',
  ]
    .filter(Boolean)
    .join(', ');
}

const quantifier = (
  relation: 'reviews' | 'tags',
  inner: readonly string[],
  q: 'any' | 'all' = 'any',
  innerJoin: 'or' | 'and' = 'or',
): QuantifierTerm => ({ relation, quantifier: q, negated: false, inner, innerJoin });

const times = <T>(n: number, pick: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => pick(i));

/** The fixed families of the `wide` endpoint: each shape the limits let through, at or near them. */
export function wideCandidates(): Candidate[] {
  const out: Candidate[] = [];
  const add = (label: string, shape: Shape) => out.push(shapeCandidate(label, shape));
  const base: Shape = { terms: [], join: 'or', count: false, limit: 100, continued: false };
  // i-operators, many inside one quantifier, with count and a sort through two relations.
  for (const n of [4, 12, 24, 49]) {
    const inner = times(n, (i) => REVIEW_LEAVES[i % 4]!);
    add(`reviews/any of ${n} i-operators, count, relation sort`, {
      ...base,
      terms: [quantifier('reviews', inner)],
      count: true,
      sort: 'relation',
    });
    add(`reviews/any of ${n} i-operators`, { ...base, terms: [quantifier('reviews', inner)] });
  }
  // i-operators at the root, filled to maxNodes.
  add('50 root i-operators, count', { ...base, terms: times(50, (i) => ({ leaf: ROOT_LEAVES[i % 7]! })), count: true });
  // Never-matching quantifiers by `or`, always-matching ones by `and`, with and without count and sorts.
  for (const n of [2, 4, 8]) {
    const never = times(n, (i) => quantifier(i % 2 ? 'tags' : 'reviews', [i % 2 ? TAG_LEAVES[2]! : REVIEW_LEAVES[5]!]));
    const always = times(n, (i) =>
      quantifier(i % 2 ? 'tags' : 'reviews', [i % 2 ? TAG_TRUE[1]! : REVIEW_TRUE[1]!], 'all'),
    );
    for (const count of [false, true]) {
      add(`or of ${n} never-matching quantifiers${count ? ', count' : ''}`, { ...base, terms: never, count });
      add(`and of ${n} always-matching quantifiers${count ? ', count' : ''}`, {
        ...base,
        terms: always,
        join: 'and',
        count,
      });
    }
    add(`or of ${n} never-matching quantifiers, count, relation sort`, {
      ...base,
      terms: never,
      count: true,
      sort: 'relation',
    });
  }
  // Inner predicates filled up to maxNodes (one quantifier: 1 + 49 leaves + 48 connectives = 98 nodes).
  add('reviews/any of 49 never-matching leaves, count', {
    ...base,
    terms: [
      quantifier(
        'reviews',
        times(49, (i) => `r/stars gt ${99 + i}`),
      ),
    ],
    count: true,
  });
  add('reviews/all of 49 always-matching leaves, count', {
    ...base,
    terms: [
      quantifier(
        'reviews',
        times(49, (i) => `r/stars lt ${99 + i}`),
        'all',
        'and',
      ),
    ],
    count: true,
  });
  add('two quantifiers of 24 leaves each, count, relation sort', {
    ...base,
    terms: [
      quantifier(
        'reviews',
        times(24, (i) => REVIEW_LEAVES[i % REVIEW_LEAVES.length]!),
      ),
      quantifier(
        'tags',
        times(23, (i) => TAG_LEAVES[i % TAG_LEAVES.length]!),
      ),
    ],
    count: true,
    sort: 'relation',
  });
  // An offset past the end of the result: every row is still evaluated and skipped.
  for (const n of [1, 4, 8]) {
    const never = times(n, (i) => quantifier(i % 2 ? 'tags' : 'reviews', [REVIEW_LEAVES[0]!, REVIEW_LEAVES[1]!]));
    const terms = never.map((t) => (t.relation === 'tags' ? quantifier('tags', [TAG_LEAVES[0]!]) : t));
    add(`offset 100000, or of ${n} quantifiers`, { ...base, terms, offset: 100_000 });
    add(`offset 100000, or of ${n} quantifiers, count`, { ...base, terms, offset: 100_000, count: true });
  }
  add('offset 100000, every row matches, relation sort', {
    ...base,
    terms: [{ leaf: ROOT_TRUE[0] }],
    offset: 100_000,
    sort: 'relation',
  });
  // Continuation pages of nullable sorts: on PostgreSQL and MariaDB a UNION ALL of branches, each repeating the filter.
  for (const n of [1, 2, 4, 8]) {
    const terms = times(n, (i) => quantifier(i % 2 ? 'tags' : 'reviews', [i % 2 ? TAG_LEAVES[0]! : REVIEW_LEAVES[0]!]));
    for (const sort of ['nullable', 'nullable-wide'] as const) {
      add(`page 2 of ${sort} sort, or of ${n} quantifiers`, { ...base, terms, sort, continued: true });
      add(`page 2 of ${sort} sort, or of ${n} quantifiers, count`, {
        ...base,
        terms,
        sort,
        continued: true,
        count: true,
      });
    }
  }
  return out;
}

/** A seeded random source (mulberry32), so a climb can be repeated. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rnd: () => number, list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;

function freshTerm(rnd: () => number, join: 'or' | 'and'): Term {
  const matching = join === 'and';
  const r = rnd();
  if (r < 0.3) return { leaf: pick(rnd, matching ? ROOT_TRUE : ROOT_LEAVES) };
  const relation = r < 0.75 ? 'reviews' : 'tags';
  const pool = relation === 'reviews' ? (matching ? REVIEW_TRUE : REVIEW_LEAVES) : matching ? TAG_TRUE : TAG_LEAVES;
  const n = 1 + Math.floor(rnd() * 8);
  return quantifier(
    relation,
    times(n, () => pick(rnd, pool)),
    matching ? 'all' : 'any',
    matching ? 'and' : 'or',
  );
}

/** Change one part of a shape: add or grow a term, swap an operator, add i-operators, count, an offset, a sort. */
export function mutate(shape: Shape, rnd: () => number): Shape {
  const terms = [...shape.terms];
  const at = Math.floor(rnd() * Math.max(1, terms.length));
  const target = terms[at];
  switch (Math.floor(rnd() * 9)) {
    case 0:
      return { ...shape, terms: [...terms, freshTerm(rnd, shape.join)] };
    case 1: {
      // Grow a quantifier's inner predicate by a few leaves (towards maxNodes).
      if (!target || 'leaf' in target) return { ...shape, terms: [...terms, freshTerm(rnd, shape.join)] };
      const pool = target.relation === 'reviews' ? [...REVIEW_LEAVES, ...REVIEW_TRUE] : [...TAG_LEAVES, ...TAG_TRUE];
      const more = times(1 + Math.floor(rnd() * 6), () => pick(rnd, pool));
      terms[at] = { ...target, inner: [...target.inner, ...more] };
      return { ...shape, terms };
    }
    case 2: {
      // Swap an operator: any ↔ all, or a leaf for another (often an i-operator).
      if (!target) return shape;
      if ('leaf' in target) terms[at] = { leaf: pick(rnd, [...ROOT_LEAVES, ...ROOT_TRUE]) };
      else terms[at] = { ...target, quantifier: target.quantifier === 'any' ? 'all' : 'any', negated: rnd() < 0.3 };
      return { ...shape, terms };
    }
    case 3: {
      // Turn plain comparisons inside a quantifier into i-operators.
      if (!target || 'leaf' in target) return { ...shape, terms: [...terms, { leaf: pick(rnd, ROOT_LEAVES) }] };
      const iops = target.relation === 'reviews' ? REVIEW_LEAVES.slice(0, 4) : TAG_LEAVES.slice(0, 2);
      terms[at] = { ...target, inner: target.inner.map((l) => (rnd() < 0.5 ? pick(rnd, iops) : l)) };
      return { ...shape, terms };
    }
    case 4:
      return { ...shape, count: !shape.count };
    case 5: {
      const { offset, ...rest } = shape;
      return offset ? rest : { ...rest, offset: pick(rnd, [50_000, 99_000, 100_000]) };
    }
    case 6: {
      const sort = pick(rnd, [undefined, 'relation', 'nullable', 'nullable-wide'] as const);
      const continued = sort === 'nullable' || sort === 'nullable-wide' ? rnd() < 0.7 : false;
      const { sort: _, ...rest } = shape;
      return sort ? { ...rest, sort, continued } : { ...rest, continued: false };
    }
    case 7:
      return { ...shape, join: shape.join === 'or' ? 'and' : 'or' };
    default:
      return { ...shape, terms: terms.length > 1 ? terms.filter((_, i) => i !== at) : terms };
  }
}
