import type { Page } from '../page/list-page.ts';
import type { Item } from '../serialize.ts';

const DONE: IteratorReturnResult<void> = Object.freeze({ done: true, value: undefined });

/**
 * The items of a walk's pages, one at a time, as an async generator gives them (the same next/return/throw,
 * queued calls, one rejection then done), at the cost of one resolved promise per item: an async generator costs
 * about twice that per item, which an export of millions of rows feels.
 *
 * `readAhead`: as soon as a page arrives, ask for the next one, so its query runs while the consumer drains this
 * page (for a database across a network: the round trip and the server's work overlap the consumer's). The walk
 * then holds at most two pages, and a consumer that stops early leaves one page read for nothing.
 */
export function itemsOf(
  pages: AsyncGenerator<Page, void, undefined>,
  readAhead = false,
): AsyncGenerator<Item, void, undefined> {
  return new ItemWalk(pages, readAhead);
}

class ItemWalk implements AsyncGenerator<Item, void, undefined> {
  readonly #pages: AsyncGenerator<Page, void, undefined>;
  readonly #readAhead: boolean;
  #items: readonly Item[] = [];
  #index = 0;
  /** The next page, asked for ahead of the consumer. */
  #ahead: Promise<IteratorResult<Page, void>> | undefined;
  /** Calls that wait for a page (or for the close), in order; the fast path is only taken when none waits. */
  #waiting = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #done = false;
  #closed = false;

  constructor(pages: AsyncGenerator<Page, void, undefined>, readAhead: boolean) {
    this.#pages = pages;
    this.#readAhead = readAhead;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** `await using`: close the walk as return() does. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  next(): Promise<IteratorResult<Item, void>> {
    if (this.#waiting === 0 && this.#index < this.#items.length)
      return Promise.resolve({ done: false, value: this.#items[this.#index++]! });
    return this.#enqueue(() => this.#nextSlow());
  }

  return(): Promise<IteratorResult<Item, void>> {
    return this.#enqueue(async () => {
      await this.#close();
      return DONE;
    });
  }

  throw(err: unknown): Promise<IteratorResult<Item, void>> {
    return this.#enqueue(async () => {
      await this.#close();
      throw err;
    });
  }

  /** Run `step` after every call before it, as an async generator runs its queued calls. */
  #enqueue(step: () => Promise<IteratorResult<Item, void>>): Promise<IteratorResult<Item, void>> {
    this.#waiting++;
    const result = this.#queue.then(step).finally(() => {
      this.#waiting--;
    });
    this.#queue = result.catch(() => {});
    return result;
  }

  async #nextSlow(): Promise<IteratorResult<Item, void>> {
    try {
      for (;;) {
        if (this.#index < this.#items.length) return { done: false, value: this.#items[this.#index++]! };
        if (this.#done) return DONE;
        // Let go of the drained page before the next one is read: the walk then holds only pages still to hand out.
        this.#items = [];
        const ahead = this.#ahead;
        this.#ahead = undefined;
        const step = await (ahead ?? this.#pages.next());
        if (step.done) {
          this.#done = true;
          return DONE;
        }
        this.#items = step.value.items;
        this.#index = 0;
        if (this.#readAhead) this.#askAhead();
      }
    } catch (err) {
      // As a generator that threw: the error once, then done.
      this.#done = true;
      this.#items = [];
      throw err;
    }
  }

  #askAhead(): void {
    const ahead = this.#pages.next();
    // Its failure is the consumer's when it gets that far; a walk closed before then drops it.
    ahead.catch(() => {});
    this.#ahead = ahead;
  }

  async #close(): Promise<void> {
    this.#done = true;
    this.#items = [];
    if (this.#closed) return;
    this.#closed = true;
    const ahead = this.#ahead;
    this.#ahead = undefined;
    // The page read ahead finishes (its statement cannot be taken back) before the pages close.
    if (ahead) await ahead.catch(() => undefined);
    await this.#pages.return(undefined);
  }
}
