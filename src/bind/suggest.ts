/**
 * Pick the public name a client most likely meant: the candidate closest to `typed` by optimal-string-alignment
 * distance (Levenshtein plus swapping two neighbours), compared without case, when it is near enough: a case-only
 * difference always, one edit for names of 3 or 4 characters, two edits from 5 characters on, none below 3.
 * Ties go to the earliest candidate. Callers pass only names the client could use at that point, so nothing
 * hidden can leak through a suggestion.
 *
 * @example closestName('titel', ['id', 'title', 'price']) // 'title'
 */
export function closestName(typed: string, candidates: Iterable<string>): string | undefined {
  const wanted = typed.toLowerCase();
  const budget = wanted.length < 3 ? 0 : wanted.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = budget + 1;
  for (const candidate of candidates) {
    if (candidate === typed) continue;
    const distance = editDistance(wanted, candidate.toLowerCase(), bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** The optimal-string-alignment distance of two strings, or `cap` as soon as it is certain to reach it. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin >= cap) return cap;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length]!, cap);
}

/** The `; did you mean 'x'?` tail of a message, or nothing when no candidate is near. */
export function suggestion(typed: string, candidates: Iterable<string>): string {
  const name = closestName(typed, candidates);
  return name === undefined ? '' : `; did you mean '${name}'?`;
}
