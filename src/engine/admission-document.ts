import type { Admission, Release } from './admission.ts';

/**
 * One turn shared by the list fields of one GraphQL document (a document is one request): the first field to run
 * asks every admission of the schema for it, with the document's weight and as many slots as it has fields (they run
 * side by side); the others wait for the same turn, and the last field to finish gives it back, whether the fields
 * succeeded, failed or were aborted. Fields start together (graphql-js calls every resolver of a selection set before
 * any of them can finish), so the turn is taken once; a field that starts after all others finished takes a new one.
 */
export class DocumentAdmission {
  readonly #admissions: readonly Admission[];
  readonly #weight: number;
  readonly #slots: number;
  #running = 0;
  #turn: Promise<Release[]> | undefined;
  #refusalReported = false;

  /** `admissions`: in one fixed order for every document, so that two documents never wait for each other's turn. */
  constructor(admissions: readonly Admission[], weight: number, slots: number) {
    this.#admissions = admissions;
    this.#weight = weight;
    this.#slots = slots;
  }

  /**
   * Run one field's work inside the document's turn. When the turn is refused (`overloaded`, or the document was
   * aborted while it waited), the first field rejects with that error and every other resolves to null, as with the
   * document budget: one error per document.
   */
  async run<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T | null> {
    this.#running++;
    this.#turn ??= enterAll(this.#admissions, this.#weight, this.#slots, signal);
    const turn = this.#turn;
    try {
      try {
        await turn;
      } catch (err) {
        if (this.#refusalReported) return null;
        this.#refusalReported = true;
        throw err;
      }
      return await work();
    } finally {
      if (--this.#running === 0) {
        this.#turn = undefined;
        this.#refusalReported = false;
        turn.then(releaseAll, () => {});
      }
    }
  }
}

/** Take a turn of each admission in order; on a refusal give back those already taken. */
async function enterAll(
  admissions: readonly Admission[],
  weight: number,
  slots: number,
  signal: AbortSignal | undefined,
): Promise<Release[]> {
  const held: Release[] = [];
  try {
    for (const admission of admissions) held.push(await admission.enter(weight, signal, slots));
  } catch (err) {
    releaseAll(held);
    throw err;
  }
  return held;
}

function releaseAll(releases: readonly Release[]): void {
  for (const release of releases) release();
}
