import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunLog } from '../test/logs.js';
import { deepFreeze, runLog } from '../test/logs.js';
import type { Envelope, RunState } from './index.js';
import {
  applyEnvelopes,
  createRunState,
  foldLog,
  messageText,
  snapshotOf,
  stateFromSnapshot,
} from './index.js';

const RUNS = 500;

/** What "the same state" means across delivery schedules. */
function essence(state: RunState) {
  return {
    messages: state.messages,
    status: state.status,
    outcome: state.outcome,
    error: state.error,
    state: state.state,
    offset: state.offset,
    messageIndex: new Map(state.messageIndex),
    toolCallOwner: new Map(state.toolCallOwner),
    openChunks: { ...state.openChunks },
  };
}

/**
 * A state with its id indexes as plain Maps of what they hold: how an index is split into
 * shards, and which batch copied which shard, depends on the batching by design.
 */
function plainIndexes<T extends RunState>(state: T): T {
  return {
    ...state,
    messageIndex: new Map(state.messageIndex),
    toolCallOwner: new Map(state.toolCallOwner),
  };
}

/** The server's `GET /runs/{id}` at offset k, through the wire and back. */
function snapshotAt(log: readonly Envelope[], k: number): RunState {
  const wire = JSON.stringify(snapshotOf(foldLog(log.slice(0, k))));
  return stateFromSnapshot(JSON.parse(wire));
}

type Step =
  | { kind: 'batch'; from: number; size: number; dups: boolean[] }
  | { kind: 'gap'; skip: number; size: number }
  | { kind: 'holeInBatch'; size: number; hole: number }
  | { kind: 'restart'; pick: number }
  | { kind: 'snapshot'; at: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('batch' as const),
      from: fc.nat(),
      size: fc.integer({ min: 1, max: 12 }),
      dups: fc.array(fc.boolean(), { maxLength: 4 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('gap' as const),
      skip: fc.integer({ min: 1, max: 3 }),
      size: fc.integer({ min: 1, max: 4 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('holeInBatch' as const),
      size: fc.integer({ min: 2, max: 8 }),
      hole: fc.nat(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('snapshot' as const), at: fc.nat() }) },
);

/**
 * A client under an adversarial network: resumes from any earlier offset (redelivery),
 * gets batches of any size with duplicates inside, sees gaps, reloads an older persisted
 * state, or replaces its state by a server snapshot, then reads the rest of the log.
 * Every state it holds is deep-frozen, so any write into an input state throws.
 */
function deliver(log: readonly Envelope[], steps: readonly Step[], tailSize: number): RunState {
  const n = log.length;
  let state = deepFreeze(createRunState());
  const saved: RunState[] = [state];
  const apply = (batch: Envelope[]) => {
    const before = state;
    const result = applyEnvelopes(before, batch);
    // Invariants of every batch: the resume point moves by exactly `applied`.
    expect(result.state.offset).toBe(before.offset + result.applied);
    if (result.applied === 0 && result.gap === null) expect(result.state).toBe(before);
    state = deepFreeze(result.state);
    return result;
  };
  for (const s of steps) {
    switch (s.kind) {
      case 'batch': {
        const from = s.from % (state.offset + 1); // resume with after ≤ the resume point
        const slice = log.slice(from, from + s.size);
        const batch = slice.flatMap((e, i) => (s.dups[i % (s.dups.length || 1)] ? [e, e] : [e]));
        const fresh = slice.filter((e) => e.offset > state.offset).length;
        const result = apply(batch);
        expect(result.gap).toBeNull();
        expect(result.applied).toBe(fresh);
        // Redeliveries of what was already applied, and repeats inside the batch.
        expect(result.duplicates).toBe(batch.length - fresh);
        break;
      }
      case 'gap': {
        const from = state.offset + s.skip;
        if (from >= n) break;
        const before = state;
        const result = apply(log.slice(from, from + s.size) as Envelope[]);
        expect(result.gap).toEqual({ expected: before.offset + 1, received: from + 1 });
        expect(result.applied).toBe(0);
        expect(state.offset).toBe(before.offset);
        break;
      }
      case 'holeInBatch': {
        const from = state.offset;
        const slice = log.slice(from, from + s.size);
        if (slice.length < 2) break;
        const hole = 1 + (s.hole % (slice.length - 1)); // never the first one
        const batch = [...slice.slice(0, hole), ...slice.slice(hole + 1)];
        const result = apply(batch);
        expect(result.applied).toBe(hole);
        if (hole < batch.length) {
          expect(result.gap).toEqual({ expected: from + hole + 1, received: from + hole + 2 });
        }
        break;
      }
      case 'restart':
        state = saved[s.pick % saved.length]!;
        break;
      case 'snapshot':
        state = deepFreeze(snapshotAt(log, s.at % (n + 1)));
        break;
    }
    saved.push(state);
  }
  while (state.offset < n) {
    const result = apply(log.slice(state.offset, state.offset + tailSize) as Envelope[]);
    expect(result.gap).toBeNull();
  }
  return state;
}

// 500 runs each take 0.5–2 s on an idle machine; the timeout leaves room for a busy one.
describe('fold properties', { timeout: 60_000 }, () => {
  it('any delivery schedule folds to the same state as the log applied once', () => {
    fc.assert(
      fc.property(
        runLog,
        fc.array(step, { maxLength: 25 }),
        fc.integer({ min: 1, max: 50 }),
        (log: RunLog, steps, tailSize) => {
          const expected = foldLog(log.envelopes);
          const got = deliver(log.envelopes, steps, tailSize);
          expect(essence(got)).toStrictEqual(essence(expected));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a snapshot at any offset k followed by the tail equals the whole fold', () => {
    fc.assert(
      fc.property(runLog, fc.nat(), fc.integer({ min: 1, max: 20 }), (log, at, size) => {
        const { envelopes } = log;
        const expected = foldLog(envelopes);
        const k = at % (envelopes.length + 1);
        let state = deepFreeze(snapshotAt(envelopes, k));
        expect(state.offset).toBe(k);
        for (let from = k; from < envelopes.length; from += size) {
          state = deepFreeze(applyEnvelopes(state, envelopes.slice(from, from + size)).state);
        }
        expect(essence(state)).toStrictEqual(essence(expected));
      }),
      { numRuns: RUNS },
    );
  });

  it('one event at a time, any batching, and the whole log at once agree', () => {
    fc.assert(
      fc.property(
        runLog,
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1 }),
        (log, sizes) => {
          const { envelopes } = log;
          const whole = foldLog(envelopes);
          let one = createRunState();
          for (const e of envelopes) one = deepFreeze(applyEnvelopes(one, [e]).state);
          let some = createRunState();
          for (let from = 0, i = 0; from < envelopes.length; i++) {
            const size = sizes[i % sizes.length]!;
            some = deepFreeze(applyEnvelopes(some, envelopes.slice(from, from + size)).state);
            from += size;
          }
          // Not just the essence: warnings, steps, app events and synthesized STARTs too.
          expect(plainIndexes(one)).toStrictEqual(plainIndexes(whole));
          expect(plainIndexes(some)).toStrictEqual(plainIndexes(whole));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a mid-stream join from every k yields exactly the text of the deltas received', () => {
    fc.assert(
      fc.property(runLog, fc.integer({ min: 1, max: 16 }), (log, size) => {
        const { envelopes, attributions, streamedMessageIds, toolCallIds } = log;
        const n = envelopes.length;
        const whole = foldLog(envelopes);
        for (let k = 1; k <= n; k++) {
          let state = createRunState({ from: k - 1 });
          for (let from = k - 1; from < n; from += size) {
            state = applyEnvelopes(state, envelopes.slice(from, from + size)).state;
          }
          expect(state.offset).toBe(n);
          // A run without a terminal event is `running` once any usable event arrived.
          if (whole.status === 'running') expect(['idle', 'running']).toContain(state.status);
          else expect(state.status).toBe(whole.status);
          expect(state.outcome).toStrictEqual(whole.outcome);
          expect(state.error).toStrictEqual(whole.error);
          expect(state.synthesized.every((s) => s.atOffset >= k)).toBe(true);

          const expected = new Map<string, string>();
          for (const a of attributions) {
            if (a.offset < k || (a.idSince !== undefined && a.idSince < k)) continue;
            const key = `${a.target}:${a.id}`;
            expected.set(key, (expected.get(key) ?? '') + a.delta);
          }
          for (const id of streamedMessageIds) {
            const i = state.messageIndex.get(id);
            const want = expected.get(`message:${id}`);
            if (i === undefined) {
              expect(want ?? '').toBe('');
              continue;
            }
            expect(messageText(state.messages[i]!)).toBe(want ?? '');
          }
          for (const id of toolCallIds) {
            const owner = state.toolCallOwner.get(id);
            const want = expected.get(`toolCall:${id}`);
            if (owner === undefined) {
              expect(want ?? '').toBe('');
              continue;
            }
            const call = state.messages[state.messageIndex.get(owner)!]!.toolCalls!.find(
              (c) => c.id === id,
            );
            expect(call?.function.arguments).toBe(want ?? '');
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('a batch gives new identities only to the messages it touches', () => {
    fc.assert(
      fc.property(runLog, fc.nat(), fc.integer({ min: 1, max: 6 }), (log, at, size) => {
        const { envelopes } = log;
        const k = at % (envelopes.length + 1);
        const before = deepFreeze(foldLog(envelopes.slice(0, k)));
        const batch = envelopes.slice(k, k + size);
        const after = applyEnvelopes(before, batch).state;

        const touched = new Set<string>(Object.values(before.openChunks));
        let terminal = false;
        for (const { event } of batch) {
          const e = event as Record<string, unknown>;
          for (const field of ['messageId', 'parentMessageId', 'toolCallId', 'entityId']) {
            if (typeof e[field] === 'string') touched.add(e[field] as string);
          }
          if (Array.isArray(e.messages)) for (const m of e.messages) touched.add(m.id);
          if (e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR') terminal = true;
        }
        // A tool call (named, or continued by an id-less chunk) touches its message.
        for (const id of [...touched]) {
          const owner = before.toolCallOwner.get(id) ?? after.toolCallOwner.get(id);
          if (owner !== undefined) touched.add(owner);
        }
        before.messages.forEach((message, i) => {
          const open = message.streaming || message.toolCalls?.some((c) => c.streaming);
          if (touched.has(message.id) || (terminal && open)) return;
          expect(after.messages[i]).toBe(message);
        });
        if (after.messages !== before.messages) {
          // Something changed or was added: the array is new, positions are stable.
          for (const [id, i] of before.messageIndex) {
            expect(after.messages[i]!.id).toBe(id);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});
