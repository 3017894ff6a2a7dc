/**
 * The admission gate on its own, with a hand-driven clock: expensive requests take one of `maxExpensive` slots, wait
 * in a queue of `queue` first come first served, and are refused with `overloaded` (and `retryAfter`) when the queue
 * is full or after `queueTimeout`; cheap requests never wait behind them; aborts, timeouts and double releases leave
 * nothing held. The settings' defaults follow the pool size. (The same gate under real load, on every database:
 * admission.test.ts.)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  type AdmissionClock,
  type AdmissionSettings,
  createAdmission,
  type Release,
} from '../../src/engine/admission.ts';
import { DocumentAdmission } from '../../src/engine/admission-document.ts';
import { admissionSettings } from '../../src/engine/admission-settings.ts';
import { isListError } from '../../src/errors.ts';

/** A clock that moves only when told: timers fire in order of their due time as `advance` passes it. */
function manualClock(): AdmissionClock & { advance(ms: number): void; pending(): number } {
  let now = 0;
  const timers = new Set<{ at: number; run: () => void }>();
  return {
    now: () => now,
    setTimer(run, ms) {
      const timer = { at: now + ms, run };
      timers.add(timer);
      return timer;
    },
    clearTimer(timer) {
      timers.delete(timer as { at: number; run: () => void });
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...timers].filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers.delete(due);
        now = due.at;
        due.run();
      }
      now = until;
    },
    pending: () => timers.size,
  };
}

const SETTINGS: AdmissionSettings = {
  maxExpensive: 2,
  expensiveAbove: 2,
  queue: 2,
  queueTimeout: 1000,
  maxCheap: Number.POSITIVE_INFINITY,
  retryAfter: 3,
};

/** Settle a promise into what it resolved to or the error it rejected with, without awaiting it forever. */
function track<T>(promise: Promise<T>): { state: 'pending' | 'done' | 'failed'; value?: T; error?: unknown } {
  const out: { state: 'pending' | 'done' | 'failed'; value?: T; error?: unknown } = { state: 'pending' };
  promise.then(
    (value) => Object.assign(out, { state: 'done', value }),
    (error) => Object.assign(out, { state: 'failed', error }),
  );
  return out;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

function codeOf(error: unknown): string {
  return isListError(error) ? error.code : String(error);
}

test('expensive requests: up to maxExpensive run, the queue waits, past it overloaded at once with retryAfter', async () => {
  const gate = createAdmission(SETTINGS, manualClock());
  const runs = [3, 3, 3, 3, 3].map((w) => track(gate.enter(w)));
  await turn();
  assert.equal(
    runs.map((r) => r.state),
    ['done', 'done', 'pending', 'pending', 'failed'],
  );
  const refused = runs[4]!.error as { code: string; retryAfter: number; status: number; message: string };
  assert.equal([refused.code, refused.status, refused.retryAfter], ['overloaded', 503, 3]);
  assert.match(refused.message, /^the server is busy with expensive requests: retry after 3 s, or send a cheaper/);
  assert.equal(gate.stats(), { expensive: { running: 2, queued: 2 }, cheap: { running: 0, queued: 0 } });
  // First come, first served: the first waiter gets the first freed slot.
  (runs[0]!.value as Release)();
  await turn();
  assert.equal(
    runs.map((r) => r.state),
    ['done', 'done', 'done', 'pending', 'failed'],
  );
  for (const r of runs) if (r.state === 'done') (r.value as Release)();
  await turn();
  assert.is(runs[3]!.state, 'done');
  (runs[3]!.value as Release)();
  assert.equal(gate.stats(), { expensive: { running: 0, queued: 0 }, cheap: { running: 0, queued: 0 } });
});

test('cheap requests never wait behind expensive ones, whatever the expensive share holds', async () => {
  const gate = createAdmission(SETTINGS, manualClock());
  const held = [3, 3, 3, 3].map((w) => track(gate.enter(w)));
  const cheap = [1, 2, 0, 2].map((w) => track(gate.enter(w)));
  await turn();
  assert.equal(
    cheap.map((r) => r.state),
    ['done', 'done', 'done', 'done'],
  );
  assert.equal(gate.stats(), { expensive: { running: 2, queued: 2 }, cheap: { running: 4, queued: 0 } });
  for (const r of [...held, ...cheap]) if (r.state === 'done') (r.value as Release)();
});

test('a waiter is refused after queueTimeout, also when a slot frees after its time ran out', async () => {
  const clock = manualClock();
  const gate = createAdmission(SETTINGS, clock);
  const [a, b] = [track(gate.enter(5)), track(gate.enter(5))];
  const waiting = track(gate.enter(5));
  await turn();
  clock.advance(999);
  await turn();
  assert.is(waiting.state, 'pending');
  clock.advance(1);
  await turn();
  assert.is(waiting.state, 'failed');
  assert.match((waiting.error as Error).message, /no turn came within 1000 ms: retry after 3 s/);
  assert.equal(gate.stats().expensive, { running: 2, queued: 0 });
  assert.is(clock.pending(), 0);
  // A waiter whose deadline passed while its timer had not run yet (a statement held the event loop): refused when
  // the slot frees, not let in late.
  const late = track(gate.enter(5));
  await turn();
  const stuck = clock.now;
  clock.now = () => stuck() + 5000;
  (a.value as Release)();
  await turn();
  assert.is(late.state, 'failed');
  assert.is(codeOf(late.error), 'overloaded');
  (b.value as Release)();
  assert.equal(gate.stats().expensive, { running: 0, queued: 0 });
});

test('an abort while waiting leaves the queue and rejects as any aborted list operation; nothing is held', async () => {
  const clock = manualClock();
  const gate = createAdmission(SETTINGS, clock);
  const held = [track(gate.enter(9)), track(gate.enter(9))];
  const controller = new AbortController();
  const waiting = track(gate.enter(9, controller.signal));
  const behind = track(gate.enter(9));
  await turn();
  controller.abort(new Error('client went away'));
  await turn();
  assert.is(waiting.state, 'failed');
  assert.equal(
    [codeOf(waiting.error), (waiting.error as Error).message],
    ['execution_failed', 'the list operation was aborted'],
  );
  assert.equal(gate.stats().expensive, { running: 2, queued: 1 });
  assert.is(clock.pending(), 1, 'the aborted waiter dropped its timer');
  // Already aborted: refused before it takes or waits for anything.
  const early = track(gate.enter(1, controller.signal));
  await turn();
  assert.equal([early.state, codeOf(early.error)], ['failed', 'execution_failed']);
  (held[0]!.value as Release)();
  await turn();
  assert.is(behind.state, 'done');
  for (const r of [held[1]!, behind]) (r.value as Release)();
  assert.equal(gate.stats(), { expensive: { running: 0, queued: 0 }, cheap: { running: 0, queued: 0 } });
});

test('a release given twice frees one slot', async () => {
  const gate = createAdmission({ ...SETTINGS, maxExpensive: 1, queue: 0 }, manualClock());
  const release = await gate.enter(3);
  const second = track(gate.enter(3));
  await turn();
  assert.is(codeOf(second.error), 'overloaded', 'queue 0: refused at once');
  release();
  release();
  assert.equal(gate.stats().expensive, { running: 0, queued: 0 });
  const again = await gate.enter(3);
  assert.equal(gate.stats().expensive, { running: 1, queued: 0 });
  again();
});

test('work needing several slots waits for all of them, at most maxExpensive; those behind it keep their turn', async () => {
  const gate = createAdmission({ ...SETTINGS, maxExpensive: 3, queue: 5 }, manualClock());
  const one = track(gate.enter(3));
  await turn();
  const document = track(gate.enter(3, undefined, 10));
  const single = track(gate.enter(3));
  await turn();
  assert.equal([document.state, single.state], ['pending', 'pending'], 'no barging past the document');
  (one.value as Release)();
  await turn();
  assert.equal([document.state, single.state], ['done', 'pending']);
  assert.equal(gate.stats().expensive, { running: 3, queued: 1 });
  (document.value as Release)();
  await turn();
  assert.is(single.state, 'done');
  (single.value as Release)();
});

test('maxCheap gives cheap requests a share of their own, with a queue, apart from the expensive one', async () => {
  const gate = createAdmission({ ...SETTINGS, maxCheap: 1, queue: 1 }, manualClock());
  const cheap = [1, 1, 1].map((w) => track(gate.enter(w)));
  const expensive = track(gate.enter(3));
  await turn();
  assert.equal(
    [...cheap, expensive].map((r) => r.state),
    ['done', 'pending', 'failed', 'done'],
  );
  assert.match((cheap[2]!.error as Error).message, /^the server is busy: retry after 3 s$/);
  for (const r of [cheap[0]!, expensive]) (r.value as Release)();
  await turn();
  (cheap[1]!.value as Release)();
  assert.equal(gate.stats(), { expensive: { running: 0, queued: 0 }, cheap: { running: 0, queued: 0 } });
});

test("a GraphQL document's fields share one turn, given back when the last field ends, whatever it did", async () => {
  const gate = createAdmission({ ...SETTINGS, maxExpensive: 2, queue: 0 }, manualClock());
  const document = new DocumentAdmission([gate], 9, 3);
  const ends: (() => void)[] = [];
  const field = (fail: boolean) =>
    track(
      document.run(undefined, async () => {
        await new Promise<void>((resolve) => ends.push(resolve));
        if (fail) throw new Error('field failed');
        return 'ok';
      }),
    );
  const fields = [field(false), field(true), field(false)];
  await turn();
  assert.equal(gate.stats().expensive, { running: 2, queued: 0 }, 'three fields, capped at maxExpensive slots');
  ends[0]!();
  ends[1]!();
  await turn();
  assert.equal(gate.stats().expensive.running, 2, 'held until the last field ends');
  ends[2]!();
  await turn();
  assert.equal(
    fields.map((f) => f.state),
    ['done', 'failed', 'done'],
  );
  assert.equal(gate.stats().expensive, { running: 0, queued: 0 });
});

test('a refused document: the first field reports overloaded, the others resolve to null, nothing is held', async () => {
  const gate = createAdmission({ ...SETTINGS, maxExpensive: 1, queue: 0 }, manualClock());
  const other = await gate.enter(5);
  const document = new DocumentAdmission([gate], 5, 2);
  let ran = 0;
  const fields = [1, 2].map(() => track(document.run(undefined, async () => ++ran)));
  await turn();
  assert.equal(
    fields.map((f) => [f.state, f.state === 'failed' ? codeOf(f.error) : f.value]),
    [
      ['failed', 'overloaded'],
      ['done', null],
    ],
  );
  assert.is(ran, 0);
  other();
  assert.equal(gate.stats().expensive, { running: 0, queued: 0 });
});

test('the defaults follow the pool size; bad settings are invalid_schema naming the setting', () => {
  const defaults = (pool: number) => ({ ...admissionSettings(undefined, pool) });
  assert.equal(defaults(10), {
    maxExpensive: 5,
    expensiveAbove: 2,
    queue: 10,
    queueTimeout: 2000,
    maxCheap: Number.POSITIVE_INFINITY,
    retryAfter: 2,
  });
  assert.equal([defaults(4).maxExpensive, defaults(4).queue], [2, 4]);
  assert.equal([defaults(1).maxExpensive, defaults(1).queue], [1, 2]);
  assert.equal(
    { ...admissionSettings({ queue: 0, queueTimeout: 2500, maxCheap: 50 }, 10) },
    {
      maxExpensive: 5,
      expensiveAbove: 2,
      queue: 0,
      queueTimeout: 2500,
      maxCheap: 50,
      retryAfter: 3,
    },
  );
  const rows: [unknown, string][] = [
    [{ maxExpensive: 0 }, 'engine config: admission.maxExpensive must be a positive integer'],
    [{ queue: -1 }, 'engine config: admission.queue must be a whole number'],
    [{ queueTimeout: 1.5 }, 'engine config: admission.queueTimeout must be a positive integer'],
    [{ expensiveAbove: '2' }, 'engine config: admission.expensiveAbove must be a whole number'],
    [{ maxExpensiv: 3 }, 'engine config: admission.maxExpensiv is not a known setting'],
    [true, 'engine config: admission must be an object of settings, or false'],
    [null, 'engine config: admission must be an object of settings, or false'],
  ];
  for (const [option, message] of rows)
    assert.throws(
      () => admissionSettings(option, 10),
      (err: unknown) => isListError(err) && err.code === 'invalid_schema' && err.message === message,
      JSON.stringify(option),
    );
});

test.run();
