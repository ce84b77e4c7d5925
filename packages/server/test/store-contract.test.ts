import { type Message, ResumableError, type RunSnapshot } from '@resumable/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppendConflictError, type EventStore } from '../src/index.js';
import { CLUSTER_STORES, tempDir } from './helpers.js';

/** The `EventStore` rules of src/stores/types.ts, for every store. */
describe.each(CLUSTER_STORES)('EventStore contract: $name', ({ create }) => {
  const dir = tempDir();
  let store: EventStore;
  const id = (name: string) => `${name}-${crypto.randomUUID()}`;
  const ev = (offset: number) => ({ offset, json: `{"type":"CUSTOM","name":"e${offset}"}` });
  const snapshot = (runId: string, threadId: string, lastOffset: number): RunSnapshot => ({
    runId,
    threadId,
    status: 'finished',
    lastOffset,
    messages: [],
  });

  beforeAll(() => {
    store = create(dir.path);
  });
  afterAll(async () => {
    await store.close();
    dir.cleanup();
  });

  async function newRun() {
    const threadId = id('t');
    const runId = id('r');
    expect(await store.createThread({ threadId, token: 'tok', createdAt: 1000 })).toBe(true);
    const { created, run } = await store.createRun({
      runId,
      threadId,
      createdAt: 2000,
      owner: 'me',
    });
    expect(created).toBe(true);
    return { threadId, runId, run };
  }

  it('creates threads and runs once', async () => {
    const { threadId, runId, run } = await newRun();
    expect(run).toEqual({
      runId,
      threadId,
      status: 'running',
      createdAt: 2000,
      endedAt: null,
      lastOffset: 0,
      eventsPruned: false,
      snapshot: null,
      owner: 'me',
    });
    expect(await store.createThread({ threadId, token: 'other', createdAt: 5 })).toBe(false);
    expect(await store.getThread(threadId)).toEqual({ threadId, token: 'tok', createdAt: 1000 });
    const again = await store.createRun({ runId, threadId, createdAt: 9, owner: 'you' });
    expect(again).toEqual({ created: false, run });
    expect(await store.getRun('missing-run')).toBeNull();
    expect(await store.getThread('missing-thread')).toBeNull();
  });

  it('appends gapless batches and reads them back in pages', async () => {
    const { runId } = await newRun();
    await store.append(runId, [ev(1), ev(2), ev(3)]);
    await store.append(runId, [ev(4)]);
    expect(await store.readEvents(runId, 0, 100)).toEqual([ev(1), ev(2), ev(3), ev(4)]);
    expect(await store.readEvents(runId, 2, 1)).toEqual([ev(3)]);
    expect(await store.readEvents(runId, 4, 10)).toEqual([]);
    expect((await store.getRun(runId))!.lastOffset).toBe(4);
  });

  it('refuses a batch that does not continue the log, storing nothing of it', async () => {
    const { runId } = await newRun();
    await store.append(runId, [ev(1)]);
    await expect(store.append(runId, [ev(3)])).rejects.toBeInstanceOf(AppendConflictError);
    await expect(store.append(runId, [ev(1)])).rejects.toBeInstanceOf(AppendConflictError);
    await expect(store.append(runId, [ev(2), ev(4)])).rejects.toBeInstanceOf(AppendConflictError);
    expect(await store.readEvents(runId, 0, 10)).toEqual([ev(1)]);
    expect((await store.getRun(runId))!.lastOffset).toBe(1);
  });

  it('ends a run atomically with its terminal batch; nothing can follow', async () => {
    const { runId, threadId } = await newRun();
    await store.append(runId, [ev(1), ev(2)], {
      status: 'cancelled',
      endedAt: 3000,
      snapshot: snapshot(runId, threadId, 2),
    });
    expect(await store.getRun(runId)).toMatchObject({
      status: 'cancelled',
      endedAt: 3000,
      lastOffset: 2,
      snapshot: snapshot(runId, threadId, 2),
    });
    await expect(
      store.append(runId, [ev(3)], {
        status: 'error',
        endedAt: 4000,
        snapshot: snapshot(runId, threadId, 3),
      }),
    ).rejects.toBeInstanceOf(AppendConflictError);
    expect((await store.getRun(runId))!.status).toBe('cancelled');
  });

  it('lists a thread’s runs newest first and the running ones as orphans (single-process stores)', async () => {
    const threadId = id('t');
    await store.createThread({ threadId, token: 'tok', createdAt: 1 });
    const a = id('a');
    const b = id('b');
    await store.createRun({ runId: a, threadId, createdAt: 10, owner: 'me' });
    await store.createRun({ runId: b, threadId, createdAt: 20, owner: 'me' });
    expect((await store.listRuns(threadId, 10)).map((r) => r.runId)).toEqual([b, a]);
    expect((await store.listRuns(threadId, 1)).map((r) => r.runId)).toEqual([b]);
    if (!store.shared && store.kind !== 'memory') {
      const orphans = (await store.findOrphanedRuns()).map((r) => r.runId);
      expect(orphans).toEqual(expect.arrayContaining([a, b]));
    }
  });

  it('maxRunningInThread: one running run per thread, claimed atomically, released by the terminal append', async () => {
    const threadId = id('claim');
    await store.createThread({ threadId, token: 'tok', createdAt: 1 });
    const ids = Array.from({ length: 8 }, (_, i) => id(`racer${i}`));
    // Eight creations at once (as from eight instances): exactly one is created.
    const results = await Promise.all(
      ids.map((runId) =>
        store.createRun({ runId, threadId, createdAt: 5, owner: 'me', maxRunningInThread: 1 }).then(
          ({ created, run }) => ({ created, runId: run.runId }),
          (e: unknown) => (e instanceof ResumableError ? e : String(e)),
        ),
      ),
    );
    const created = results.filter((r) => !(r instanceof ResumableError));
    expect(created).toHaveLength(1);
    const winner = (created[0] as { runId: string }).runId;
    expect(created[0]).toEqual({ created: true, runId: winner });
    for (const refused of results.filter((r) => r instanceof ResumableError)) {
      expect([refused.status, refused.toBody()]).toEqual([
        409,
        {
          error: {
            code: 'run_in_progress',
            message: `thread ${threadId} has a run in progress (${winner}); start the next one when it ends`,
            runId: winner,
          },
        },
      ]);
    }
    // Refused runs were not stored; a retry of the winner is still answered as existing.
    expect((await store.listRuns(threadId, 10)).map((r) => r.runId)).toEqual([winner]);
    expect(
      (
        await store.createRun({
          runId: winner,
          threadId,
          createdAt: 6,
          owner: 'me',
          maxRunningInThread: 1,
        })
      ).created,
    ).toBe(false);
    // Without the limit a second run starts (the limit is the caller's to ask for).
    const free = id('free');
    expect(
      (await store.createRun({ runId: free, threadId, createdAt: 7, owner: 'me' })).created,
    ).toBe(true);
    // The terminal append releases the thread: with both ended, the next claim succeeds.
    for (const [runId, lastOffset] of [
      [winner, 1],
      [free, 1],
    ] as const) {
      await store.append(runId, [ev(1)], {
        status: 'finished',
        endedAt: 8,
        snapshot: snapshot(runId, threadId, lastOffset),
      });
    }
    const next = id('next');
    const again = await store.createRun({
      runId: next,
      threadId,
      createdAt: 9,
      owner: 'me',
      maxRunningInThread: 1,
    });
    expect([again.created, again.run.status]).toEqual([true, 'running']);
  });

  it('keeps history by message id: new ids append, known ids update in place; pages by cursor', async () => {
    const { threadId, runId } = await newRun();
    const m = (mid: string, content: string): Message => ({ id: mid, role: 'user', content });
    await store.putMessages(threadId, runId, [m('m1', 'one'), m('m2', 'two'), m('m3', 'three')]);
    await store.putMessages(threadId, runId, [m('m2', 'TWO'), m('m4', 'four')]);
    const all = await store.listMessages(threadId, null, 10);
    expect(all).toEqual({
      messages: [m('m1', 'one'), m('m2', 'TWO'), m('m3', 'three'), m('m4', 'four')],
      nextBefore: null,
    });
    const newest = await store.listMessages(threadId, null, 3);
    expect(newest.messages.map((x) => x.id)).toEqual(['m2', 'm3', 'm4']);
    expect(newest.nextBefore).not.toBeNull();
    const older = await store.listMessages(threadId, newest.nextBefore, 3);
    expect(older).toEqual({ messages: [m('m1', 'one')], nextBefore: null });
  });

  it('createRun with the token of a thread since made again under its id: 404, nothing stored', async () => {
    const threadId = id('remade');
    expect(await store.createThread({ threadId, token: 'new-owner', createdAt: 1 })).toBe(true);
    const stale = { runId: id('r'), threadId, createdAt: 2, owner: 'me', threadToken: 'old' };
    const refused = await store.createRun(stale).then(
      () => 'resolved',
      (e: unknown) => (e instanceof ResumableError ? e.code : String(e)),
    );
    expect([refused, await store.getRun(stale.runId), await store.listRuns(threadId, 10)]).toEqual([
      'thread_not_found',
      null,
      [],
    ]);
    const fresh = { ...stale, runId: id('r'), threadToken: 'new-owner' };
    expect((await store.createRun(fresh)).run.runId).toBe(fresh.runId);
    expect((await store.createRun(fresh)).created).toBe(false);
  });

  it('a write naming a missing thread or run throws the typed 404, and stores nothing', async () => {
    const threadId = id('gone');
    const runId = id('r');
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => 'resolved',
        (e: unknown) => (e instanceof ResumableError ? [e.status, e.toBody()] : String(e)),
      );
    const noThread = [
      404,
      { error: { code: 'thread_not_found', message: `no thread ${threadId}` } },
    ];
    // Before: a plain Error (answered 500 internal), and SQLite stored a run with no thread.
    expect(await failure(store.createRun({ runId, threadId, createdAt: 1, owner: 'me' }))).toEqual(
      noThread,
    );
    expect(await store.getRun(runId)).toBeNull();
    expect(await store.listRuns(threadId, 10)).toEqual([]);
    expect(await failure(store.append(runId, [ev(1)]))).toEqual([
      404,
      { error: { code: 'run_not_found', message: `no run ${runId}` } },
    ]);
    expect(await store.readEvents(runId, 0, 10)).toEqual([]);
    const message: Message = { id: 'm1', role: 'user', content: 'hi' };
    expect(await failure(store.putMessages(threadId, runId, [message]))).toEqual(noThread);
    expect(await store.listMessages(threadId, null, 10)).toEqual({
      messages: [],
      nextBefore: null,
    });
  });

  it('prunes the events of runs that ended before the cut-off, keeping the record', async () => {
    const { runId, threadId } = await newRun();
    const live = await newRun();
    await store.append(runId, [ev(1)], {
      status: 'finished',
      endedAt: 5000,
      snapshot: snapshot(runId, threadId, 1),
    });
    await store.append(live.runId, [ev(1)]);
    await store.pruneEvents(4000); // runs of earlier tests that ended at 3000
    expect(await store.pruneEvents(4000)).toBe(0);
    expect(await store.readEvents(runId, 0, 10)).toEqual([ev(1)]);
    expect(await store.pruneEvents(6000)).toBe(1);
    expect(await store.readEvents(runId, 0, 10)).toEqual([]);
    expect(await store.getRun(runId)).toMatchObject({
      eventsPruned: true,
      lastOffset: 1,
      snapshot: snapshot(runId, threadId, 1),
    });
    expect(await store.readEvents(live.runId, 0, 10)).toEqual([ev(1)]);
  });
});

describe('SQLite failures are typed', () => {
  it('a store that cannot write answers store_unavailable and keeps what it had', async () => {
    const dir = tempDir();
    const { SqliteStore } = await import('../src/stores/sqlite/sqlite-store.js');
    const path = `${dir.path}/locked.db`;
    const store = new SqliteStore({ path });
    const Database = (await import('libsql')).default;
    const other = new Database(path);
    try {
      await store.createThread({ threadId: 't', token: 'x', createdAt: 1 });
      await store.createRun({ runId: 'r', threadId: 't', createdAt: 2, owner: 'me' });
      await store.append('r', [{ offset: 1, json: '{"type":"CUSTOM","name":"a"}' }]);
      // Another connection holds the write lock past the busy timeout.
      other.pragma('busy_timeout = 0');
      other.exec('BEGIN IMMEDIATE');
      (store as unknown as { db: { pragma(s: string): void } }).db.pragma('busy_timeout = 50');
      const error = await store
        .append('r', [{ offset: 2, json: '{"type":"CUSTOM","name":"b"}' }])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResumableError);
      expect((error as ResumableError).code).toBe('store_unavailable');
      expect((error as ResumableError).status).toBe(503);
      other.exec('ROLLBACK');
      expect(await store.readEvents('r', 0, 10)).toEqual([
        { offset: 1, json: '{"type":"CUSTOM","name":"a"}' },
      ]);
      await store.close();
      const closed = await store.getRun('r').catch((e: unknown) => e);
      expect((closed as ResumableError).toBody()).toEqual({
        error: { code: 'store_unavailable', message: `the SQLite store ${path} is closed` },
      });
    } finally {
      other.close();
      dir.cleanup();
    }
  });
});
