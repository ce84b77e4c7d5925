import type { RunSnapshot } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { FRESH_SNAPSHOT_MS } from '../base/defaults.js';
import type { SharedStreamParts } from './shared-stream.js';
import { SharedStream } from './shared-stream.js';

const snapshot = (runId: string, lastOffset: number): RunSnapshot => ({
  runId,
  threadId: 't',
  status: 'running',
  lastOffset,
  messages: [],
});

/** A SharedStream whose server answers every `GET /runs/{id}` at offset 9; reads logged. */
function over() {
  let now = 1000;
  const reads: string[] = [];
  const followed = {
    env: { now: () => now },
    api: {
      getRun: async (runId: string) => {
        reads.push(runId);
        return snapshot(runId, 9);
      },
    },
  };
  const shared = new SharedStream({ followed } as unknown as SharedStreamParts);
  return { shared, reads, later: (ms: number) => (now += ms) };
}

describe('SharedStream.readSnapshot: the join takes the snapshot knownRun just read', () => {
  it('once, for its run, while fresh; otherwise it reads the server', async () => {
    const s = over();
    s.shared.keepFresh(snapshot('r1', 3));
    expect((await s.shared.readSnapshot('r1', 'tok')).lastOffset).toBe(3);
    expect((await s.shared.readSnapshot('r1', 'tok')).lastOffset).toBe(9); // taken already
    s.shared.keepFresh(snapshot('r2', 3));
    expect((await s.shared.readSnapshot('r1', 'tok')).lastOffset).toBe(9); // another run's
    s.shared.keepFresh(snapshot('r3', 3));
    s.later(FRESH_SNAPSHOT_MS);
    expect((await s.shared.readSnapshot('r3', 'tok')).lastOffset).toBe(3);
    s.shared.keepFresh(snapshot('r3', 4));
    s.later(FRESH_SNAPSHOT_MS + 1);
    expect((await s.shared.readSnapshot('r3', 'tok')).lastOffset).toBe(9); // stale
    expect(s.reads).toEqual(['r1', 'r1', 'r3']);
  });
});
