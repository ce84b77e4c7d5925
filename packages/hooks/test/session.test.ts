import { applyEnvelopes, createRunState } from '@resumable/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordOf } from '../src/core/records/record-write.js';
import type { RunResumeRecord } from '../src/core/records/run-record.js';
import { runRecordKey } from '../src/core/records/run-record.js';
import { createIndexedDbStorage, createMemoryStorage } from '../src/core/records/storage.js';
import { FakeServer } from './fake-server.js';
import { assistantText, type Harness, openSession, waitFor } from './util.js';

let server: FakeServer;
const open: Harness[] = [];
const session = (...args: Parameters<typeof openSession>) => {
  const h = openSession(...args);
  open.push(h);
  return h;
};
const eventsRequests = (runId: string) =>
  server.requests.filter((r) => r.path === `/runs/${runId}/events`).map((r) => r.after);

beforeEach(async () => {
  server = await new FakeServer({ tokens: 20, intervalMs: 3 }).start();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.session.dispose();
  await server.close();
});

const RUN = 'run-0123456789abcdef';

/**
 * A paused run at offset 6 on the server, and a storage whose record for key 'k' is ahead
 * of that log: offset 50 with text ('FOREIGN') this server never sent, as from another server.
 */
async function storageAheadOfServer() {
  const storage = createMemoryStorage();
  server.createRun(RUN, 'th-1', { paused: true });
  server.step(RUN, 6);
  const foreign = applyEnvelopes(createRunState({ from: 49, runId: RUN, threadId: 'th-1' }), [
    {
      offset: 50,
      event: { type: 'TEXT_MESSAGE_CONTENT', messageId: 'x', delta: 'FOREIGN' } as never,
    },
  ]).state;
  await storage.update(runRecordKey('k'), () =>
    recordOf('k', foreign, { runId: RUN, threadId: 'th-1', token: 'tok-th-1' }, 1),
  );
  return storage;
}

describe('RunSession against a protocol server', () => {
  it('starts a run with a client-chosen id, folds it to the exact text and persists the end', async () => {
    const h = session(server.url);
    const started = await h.session.start({ runId: RUN, messages: [] });
    expect(started.runId).toBe(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    const state = h.session.getState();
    expect(assistantText(state.messages)).toBe(FakeServer.fullText(20));
    expect(assistantText(state.messages)).toBe(server.text(RUN));
    expect(state.connection.phase).toBe('finished');
    expect(state.connection.offset).toBe(24);
    await h.session.flush();
    const record = (await h.storage.get(runRecordKey('k'))) as {
      offset: number;
      status: string;
      token: string;
    };
    expect(record).toMatchObject({ v: 1, key: 'k', runId: RUN, offset: 24, status: 'finished' });
    expect(record.token).toBe(server.runs.get(RUN)!.token);
    expect(eventsRequests(RUN)).toEqual([0]);
  });

  it('after a reload shows the snapshot at once and resumes from the persisted offset', async () => {
    const storage = createIndexedDbStorage({ dbName: 'reload-test' });
    server.createRun(RUN, 'th-1', { paused: true });
    const a = session(server.url, { storage });
    await a.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    server.step(RUN, 9);
    await waitFor(() => a.session.getState().connection.offset === 9, 'offset 9');
    await a.session.flush();
    // The page dies: no more writes from it.
    await a.session.dispose();
    server.step(RUN, 5);

    const b = session(server.url, { storage });
    await b.session.hydrate();
    // Before any network: the persisted text (7 tokens in offsets 3..9).
    expect(assistantText(b.session.getState().messages)).toBe(FakeServer.fullText(7));
    await waitFor(() => b.session.getState().connection.phase === 'streaming', 'streaming');
    server.resume(RUN);
    await waitFor(() => b.session.getState().status === 'finished', 'finished');
    expect(eventsRequests(RUN).slice(-1)).toEqual([9]);
    expect(assistantText(b.session.getState().messages)).toBe(server.text(RUN));
    expect(server.text(RUN)).toBe(FakeServer.fullText(20));
    expect(b.session.getState().connection.resumes).toBe(1);
    expect(b.session.getState().connection.caughtUp).toBe(5);
  });

  it('resumes after drops at chosen offsets, with no token lost or doubled', async () => {
    server.cutAt = new Set([5, 12, 17]);
    const h = session(server.url);
    await h.session.start({ runId: RUN });
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    expect(assistantText(h.session.getState().messages)).toBe(FakeServer.fullText(20));
    expect(eventsRequests(RUN)).toEqual([0, 5, 12, 17]);
    expect(h.session.getState().connection.resumes).toBe(3);
  });

  it('goes offline on the offline signal and reconnects at once when back online', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    const h = session(server.url);
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    server.step(RUN, 6);
    await waitFor(() => h.session.getState().connection.offset === 6, 'offset 6');
    h.online.set(false);
    await waitFor(() => h.session.getState().connection.phase === 'offline', 'offline');
    const before = server.requests.length;
    server.step(RUN, 10);
    await new Promise((r) => setTimeout(r, 60));
    expect(server.requests.length).toBe(before);
    expect(h.session.getState().connection.offset).toBe(6);
    h.online.set(true);
    server.resume(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    expect(eventsRequests(RUN).slice(-1)).toEqual([6]);
    expect(assistantText(h.session.getState().messages)).toBe(server.text(RUN));
  });

  it('treats a silent connection as stalled after twice the heartbeat and reconnects', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    const h = session(server.url, { heartbeatMs: 40 });
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    server.step(RUN, 4);
    await waitFor(() => h.session.getState().connection.offset === 4, 'offset 4');
    server.silent = true;
    server.step(RUN, 3);
    await waitFor(() => h.session.getState().connection.lastError?.code === 'stalled', 'stall');
    server.silent = false;
    server.resume(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    expect(eventsRequests(RUN).slice(0, 2)).toEqual([0, 4]);
    expect(assistantText(h.session.getState().messages)).toBe(server.text(RUN));
  });

  it('on 410 loads the GET /runs/:id snapshot and continues from its lastOffset', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    server.step(RUN, 8);
    server.expiredBelow = 5;
    const h = session(server.url);
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(() => h.session.getState().connection.offset === 8, 'offset 8');
    // Simulate an old record: force a 410 on the next request.
    server.eventOverrides.push({
      status: 410,
      body: { error: { code: 'offset_expired', message: 'gone' } },
    });
    server.dropConnections(RUN);
    server.step(RUN, 3);
    await waitFor(() => eventsRequests(RUN).includes(11), 'resume after the snapshot');
    server.resume(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    const paths = server.requests.map(
      (r) => `${r.method} ${r.path}${r.after === null ? '' : `?after=${r.after}`}`,
    );
    const i = paths.lastIndexOf(`GET /runs/${RUN}/events?after=8`);
    expect(paths[i + 1]).toBe(`GET /runs/${RUN}`);
    expect(paths[i + 2]).toBe(`GET /runs/${RUN}/events?after=11`);
    expect(assistantText(h.session.getState().messages)).toBe(server.text(RUN));
  });

  it('on 404 clears the record and surfaces run_not_found', async () => {
    const storage = createMemoryStorage();
    server.createRun(RUN, 'th-1', { paused: true });
    server.step(RUN, 5);
    const a = session(server.url, { storage });
    await a.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(() => a.session.getState().connection.offset === 5, 'offset 5');
    await a.session.flush();
    await a.session.dispose();
    server.forgotten.add(RUN);
    const b = session(server.url, { storage });
    await waitFor(() => b.session.getState().connection.phase === 'error', 'error');
    expect(b.session.getState().error?.code).toBe('run_not_found');
    expect(b.warnings.map((w) => w.code)).toEqual(['run_not_found']);
    await b.session.flush();
    expect(await storage.get(runRecordKey('k'))).toBeUndefined();
  });

  it('on 204 without its own terminal event takes the end from the snapshot', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    server.step(RUN, 5);
    const h = session(server.url);
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(() => h.session.getState().connection.offset === 5, 'offset 5');
    server.eventOverrides.push({ status: 204 });
    server.dropConnections(RUN);
    server.resume(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    expect(assistantText(h.session.getState().messages)).toBe(FakeServer.fullText(20));
  });

  it('on 429 waits Retry-After seconds, then resumes', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    server.step(RUN, 3);
    // Retry-After is clamped to the policy's maxMs: allow 2 s here.
    const h = session(server.url, { backoff: { initialMs: 5, maxMs: 2000 } });
    server.eventOverrides.push({
      status: 429,
      body: { error: { code: 'too_many_requests', message: 'slow down' } },
      headers: { 'Retry-After': '1' },
    });
    // The snapshot GET of attach passes; the events GET gets the 429.
    const t0 = Date.now();
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(
      () => h.session.getState().connection.lastError?.code === 'too_many_requests',
      '429',
    );
    const { nextRetryAt, attempt, phase } = h.session.getState().connection;
    expect(phase).toBe('reconnecting');
    expect(attempt).toBe(1);
    expect(nextRetryAt! - t0).toBeGreaterThanOrEqual(1000);
    expect(nextRetryAt! - t0).toBeLessThan(1500);
    server.resume(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(assistantText(h.session.getState().messages)).toBe(server.text(RUN));
  });

  it('on 401 stops with unauthorized and does not retry', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    const h = session(server.url);
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'wrong' });
    await waitFor(() => h.session.getState().connection.phase === 'error', 'error');
    expect(h.session.getState().error?.code).toBe('unauthorized');
    const n = server.requests.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(server.requests.length).toBe(n);
  });

  it('a gap in offsets reconnects from the resume point', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    server.step(RUN, 4);
    const h = session(server.url);
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(() => h.session.getState().connection.phase === 'streaming', 'streaming');
    server.raw(
      RUN,
      'id: 9\ndata: {"type":"TEXT_MESSAGE_CONTENT","messageId":"x","delta":"BAD"}\n\n',
    );
    await waitFor(() => h.session.getState().connection.lastError?.code === 'offset_gap', 'gap');
    server.resume(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    expect(eventsRequests(RUN)).toEqual([4, 4]);
    expect(assistantText(h.session.getState().messages)).toBe(FakeServer.fullText(20));
  });

  it('survives bad frames: no id, non-JSON data, offsets going backwards', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    server.step(RUN, 4);
    const h = session(server.url);
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(() => h.session.getState().connection.phase === 'streaming', 'streaming');
    server.raw(RUN, 'data: {"type":"TEXT_MESSAGE_CONTENT"}\n\n'); // no id
    // At or below the resume point (4): a redelivery, dropped without a word.
    server.raw(RUN, 'id: 3\ndata: {"type":"RUN_STARTED"}\n\n');
    // Non-JSON data at the next offset: it occupies the offset, the fold warns and moves on.
    server.raw(RUN, 'id: 5\ndata: {not json\n\n');
    await waitFor(() => h.session.getState().connection.offset === 5, 'offset 5');
    // Backwards relative to the last offset of this response (5): a server fault.
    server.raw(RUN, 'id: 4\ndata: {"type":"RUN_STARTED"}\n\n');
    await waitFor(
      () => h.warnings.length === 3,
      `three warnings, got ${JSON.stringify(h.warnings.map((w) => w.message))}`,
    );
    expect(h.warnings.map((w) => `${w.code}: ${w.message}`)).toEqual([
      'malformed_event: an event needs a positive integer offset, got "undefined"',
      'malformed_event: offset 5: an event must have a string "type"',
      'offset_gap: offset went backwards in one stream: 4 after 5',
    ]);
    expect(h.session.getState().connection.phase).toBe('streaming');
    // The server's own event 5 is now a redelivery for this client; the text of the
    // other offsets stays exact.
    server.resume(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    expect(assistantText(h.session.getState().messages)).toBe(
      FakeServer.fullText(20).replace('tok2 ', ''),
    );
    expect(h.warnings).toHaveLength(3);
  });

  it('keeps the connection object while batches only move the offset', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    const h = session(server.url);
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(() => h.session.getState().connection.phase === 'streaming', 'streaming');
    server.step(RUN, 1);
    await waitFor(() => h.session.getState().connection.offset === 1, 'offset 1');
    const connection = h.session.getState().connection;
    const seen = new Set([connection]);
    let updates = 0;
    const off = h.session.store.subscribe((s) => {
      updates++;
      seen.add(s.connection);
    });
    for (let offset = 2; offset <= 6; offset++) {
      server.step(RUN, 1);
      await waitFor(() => h.session.getState().run.offset === offset, `offset ${offset}`);
    }
    off();
    expect(updates).toBe(5);
    expect(seen.size).toBe(1);
    // The same object still tells the current resume point.
    expect(h.session.getState().connection).toBe(connection);
    expect({ ...connection }).toEqual({
      phase: 'streaming',
      attempt: 0,
      nextRetryAt: null,
      lastError: null,
      caughtUp: 1,
      resumes: 1, // attach starts from the GET /runs/:id snapshot
      offset: 6,
      persistence: 'memory',
    });
    expect(JSON.parse(JSON.stringify(connection)).offset).toBe(6);
    // A fact a status line shows still makes a new object.
    server.resume(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    const end = h.session.getState().connection;
    expect(end).not.toBe(connection);
    expect([end.phase, end.offset]).toEqual(['finished', 24]);
  });

  it('discards a corrupt or unknown-version record with a typed warning', async () => {
    const storage = createMemoryStorage();
    await storage.update(runRecordKey('k'), () => ({ v: 2, runId: RUN }));
    const a = session(server.url, { storage });
    await a.session.hydrate();
    expect(a.warnings.map((w) => [w.code, w.message])).toEqual([
      ['corrupt_record', 'persisted record "k" discarded: unknown version 2'],
    ]);
    expect(a.session.getState().connection.phase).toBe('idle');
    expect(await storage.get(runRecordKey('k'))).toBeUndefined();

    await storage.update(runRecordKey('j'), () => 'garbage');
    const b = session(server.url, { storage, key: 'j' });
    await b.session.hydrate();
    expect(b.warnings.map((w) => w.code)).toEqual(['corrupt_record']);
    // The session still works.
    await b.session.start({ runId: RUN });
    await waitFor(() => b.session.getState().status === 'finished', 'finished');
    expect(assistantText(b.session.getState().messages)).toBe(FakeServer.fullText(20));
  });

  it('stop cancels on the server, reads the log to its end and is never revived', async () => {
    const storage = createMemoryStorage();
    server.createRun(RUN, 'th-1', { paused: true });
    server.step(RUN, 6);
    const a = session(server.url, { storage });
    await a.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(() => a.session.getState().connection.offset === 6, 'offset 6');
    await a.session.cancel();
    await waitFor(() => a.session.getState().status === 'cancelled', 'cancelled');
    expect(
      server.requests.some((r) => r.method === 'POST' && r.path === `/runs/${RUN}/cancel`),
    ).toBe(true);
    expect(assistantText(a.session.getState().messages)).toBe(server.text(RUN));
    expect(a.session.getState().messages[0]).toMatchObject({ ended: 'stopped' });
    expect(a.session.getState().connection.phase).toBe('cancelled');
    await a.session.flush();
    await a.session.dispose();
    const n = server.requests.length;
    const b = session(server.url, { storage });
    await b.session.hydrate();
    await new Promise((r) => setTimeout(r, 30));
    expect(server.requests.length).toBe(n);
    expect(b.session.getState().status).toBe('cancelled');
  });

  it('retries a refused cancel with backoff (honouring Retry-After) until the server takes it', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    server.step(RUN, 6);
    const h = session(server.url, { backoff: { initialMs: 5, maxMs: 2000 } });
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(() => h.session.getState().connection.offset === 6, 'offset 6');
    const unavailable = { error: { code: 'store_unavailable', message: 'down' } };
    server.cancelOverrides.push(
      { status: 503, body: unavailable, headers: { 'Retry-After': '1' } },
      { status: 503, body: unavailable },
    );
    await h.session.cancel();
    expect(h.session.getState().connection.phase).toBe('cancelled');
    await waitFor(() => h.session.getState().status === 'cancelled', 'cancelled', 8000);
    const cancels = server.requests.filter((r) => r.path === `/runs/${RUN}/cancel`);
    expect(cancels.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
    // The first 503 asked for 1 s; the second one waits the session's backoff (≤ 10 ms here).
    expect(cancels[1]!.at - cancels[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(cancels[2]!.at - cancels[1]!.at).toBeLessThan(1000);
    // The run really ended on the server, and the client read its log to that end.
    expect(server.runs.get(RUN)!.events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: { type: 'cancelled' },
    });
    expect(assistantText(h.session.getState().messages)).toBe(server.text(RUN));
    expect(assistantText(h.session.getState().messages)).toBe(FakeServer.fullText(4));
    expect(h.warnings.map((w) => w.code)).toEqual(['store_unavailable', 'store_unavailable']);
    const { phase, attempt, nextRetryAt } = h.session.getState().connection;
    expect([phase, attempt, nextRetryAt]).toEqual(['cancelled', 0, null]);
  });

  it('a stop of a new run is sent even while the previous run’s cancel is still in flight', async () => {
    const RUN2 = 'run-fedcba9876543210';
    server.pauseNew = true;
    const h = session(server.url);
    await h.session.start({ runId: RUN });
    server.step(RUN, 3);
    await waitFor(() => h.session.getState().connection.offset === 3, 'offset 3');
    // The first run's cancel hangs on a slow server, then fails.
    server.cancelOverrides.push({
      status: 503,
      body: { error: { code: 'store_unavailable', message: 'slow' } },
      delayMs: 400,
    });
    const first = h.session.cancel();
    await waitFor(() => server.requests.some((r) => r.path === `/runs/${RUN}/cancel`), 'cancel 1');
    await h.session.start({ runId: RUN2 });
    server.step(RUN2, 3);
    await waitFor(() => h.session.getState().connection.offset === 3, 'offset 3 of run 2');
    await h.session.cancel();
    await waitFor(() => h.session.getState().status === 'cancelled', 'run 2 cancelled');
    await first;
    const cancels = server.requests
      .filter((r) => r.path.endsWith('/cancel'))
      .map((r) => r.path.split('/')[2]);
    // Run 1's cancel gave up with its run (no longer current): it is not retried.
    expect(cancels).toEqual([RUN, RUN2]);
    expect(h.session.getState().runId).toBe(RUN2);
    expect(assistantText(h.session.getState().messages)).toBe(server.text(RUN2));
    expect(server.text(RUN2)).toBe(FakeServer.fullText(1));
  });

  it('a stop sent offline is never revived and goes out when back online', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    server.step(RUN, 3);
    const h = session(server.url);
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(() => h.session.getState().connection.offset === 3, 'offset 3');
    h.online.set(false);
    const realFetch = globalThis.fetch;
    const offlineFetch = (() => Promise.reject(new TypeError('offline'))) as typeof fetch;
    globalThis.fetch = offlineFetch;
    try {
      await h.session.cancel();
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(h.session.getState().connection.phase).toBe('cancelled');
    expect(h.session.getState().stopped).toBe(true);
    server.step(RUN, 5);
    h.online.set(true);
    await waitFor(() => h.session.getState().status === 'cancelled', 'cancelled');
    expect(assistantText(h.session.getState().messages)).toBe(server.text(RUN));
  });

  it('writes the record at most 4 times a second while streaming', async () => {
    const slow = await new FakeServer({ tokens: 150, intervalMs: 10 }).start();
    try {
      const h = session(slow.url);
      const t0 = Date.now();
      await h.session.start({ runId: RUN });
      await waitFor(() => h.session.getState().status === 'finished', 'finished', 10_000);
      const seconds = (Date.now() - t0) / 1000;
      // One write at start, throttled writes, one at the end.
      expect(h.session.recordWrites).toBeLessThanOrEqual(Math.ceil(seconds * 4) + 2);
      expect(h.session.recordWrites).toBeGreaterThanOrEqual(3);
    } finally {
      await slow.close();
    }
  });

  it('shares one connection between holders and survives a StrictMode release/retain', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    const h = session(server.url);
    const second = h.session.retain();
    h.release();
    const third = h.session.retain(); // StrictMode: unmount, remount in the same tick
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    server.resume(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    expect(eventsRequests(RUN)).toEqual([0]);
    second();
    third();
  });

  it('retries at once when the page becomes visible, instead of waiting out the backoff', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    server.step(RUN, 3);
    const h = session(server.url, { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    // Force the first attempt to fail so a long backoff is pending.
    server.eventOverrides.push({
      status: 503,
      body: { error: { code: 'store_unavailable', message: 'x' } },
    });
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(
      () => h.session.getState().connection.lastError?.code === 'store_unavailable',
      '503',
    );
    expect(h.session.getState().connection.phase).toBe('reconnecting');
    h.visible.set(false);
    h.visible.set(true);
    await waitFor(() => h.session.getState().connection.phase === 'streaming', 'streaming');
    server.resume(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    expect(eventsRequests(RUN)).toEqual([3, 3]);
  });

  it('resets the retry count only after a stable uptime', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    const h = session(server.url, { stableAfterMs: 80 });
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(() => h.session.getState().connection.phase === 'streaming', 'streaming');
    for (let i = 1; i <= 3; i++) {
      server.dropConnections(RUN);
      await waitFor(() => h.session.getState().connection.attempt === i, `attempt ${i}`);
      await waitFor(() => h.session.getState().connection.phase === 'streaming', 'streaming again');
    }
    expect(h.session.getState().connection.attempt).toBe(3);
    await waitFor(() => h.session.getState().connection.attempt === 0, 'reset after 80 ms up');
    expect(h.session.getState().connection.lastError).toBeNull();
  });

  it('gives up after maxRetries with the last error', async () => {
    server.createRun(RUN, 'th-1', { paused: true });
    for (let i = 0; i < 3; i++) {
      server.eventOverrides.push({
        status: 503,
        body: { error: { code: 'store_unavailable', message: 'down' } },
      });
    }
    const h = session(server.url, { maxRetries: 2 });
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(() => h.session.getState().connection.phase === 'error', 'error');
    expect(h.session.getState().error?.code).toBe('store_unavailable');
    expect(eventsRequests(RUN)).toEqual([0, 0, 0]);
    // retry() starts over.
    h.session.retry();
    server.resume(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    expect(assistantText(h.session.getState().messages)).toBe(FakeServer.fullText(20));
  });

  it('flushes the record on pagehide', async () => {
    let hide = () => {};
    server.createRun(RUN, 'th-1', { paused: true });
    const h = session(server.url, {
      maxWritesPerSecond: 0.001,
      env: {
        onPageHide: (listener) => {
          hide = listener;
          return () => {};
        },
      },
    });
    await h.session.attach({ runId: RUN, threadId: 'th-1', token: 'tok-th-1' });
    await waitFor(() => h.session.getState().connection.phase === 'streaming', 'streaming');
    server.step(RUN, 2);
    await waitFor(() => h.session.getState().connection.offset === 2, 'offset 2');
    server.step(RUN, 5);
    await waitFor(() => h.session.getState().connection.offset === 7, 'offset 7');
    const before = (await h.storage.get(runRecordKey('k'))) as { offset: number };
    // The throttle holds everything after the run's first record back…
    expect(before.offset).toBe(0);
    hide();
    // …and pagehide writes it (no explicit flush here).
    let stored = 0;
    for (let i = 0; i < 100 && stored !== 7; i++) {
      await new Promise((r) => setTimeout(r, 2));
      stored = ((await h.storage.get(runRecordKey('k'))) as { offset: number }).offset;
    }
    expect(stored).toBe(7);
  });

  it('after a 409 persists the snapshot at its lastOffset; a reload resumes after it', async () => {
    const storage = await storageAheadOfServer();
    const a = session(server.url, { storage });
    await waitFor(() => eventsRequests(RUN).length === 2, 'resume after the snapshot');
    await waitFor(() => a.session.getState().connection.phase === 'streaming', 'streaming');
    await a.session.flush();
    const stored = (await storage.get(runRecordKey('k'))) as RunResumeRecord;
    expect(stored.offset).toBe(6);
    expect(stored.base).toBe(6);
    expect(stored.snapshot.lastOffset).toBe(6);
    expect(assistantText(stored.snapshot.messages)).toBe(FakeServer.fullText(4));
    await a.session.dispose();

    // The reload shows the server's state and asks for what follows it (no second 409).
    const b = session(server.url, { storage });
    await b.session.hydrate();
    expect(assistantText(b.session.getState().messages)).toBe(FakeServer.fullText(4));
    server.resume(RUN);
    await waitFor(() => b.session.getState().status === 'finished', 'finished');
    expect(eventsRequests(RUN)).toEqual([50, 6, 6]);
    expect(assistantText(b.session.getState().messages)).toBe(FakeServer.fullText(20));
    // Ordinary writes on top of the replacement go through (same base).
    await b.session.flush();
    const end = (await storage.get(runRecordKey('k'))) as RunResumeRecord;
    expect([end.offset, end.base, end.status]).toEqual([24, 6, 'finished']);
  });

  it('on 409 (a record ahead of the server’s log) takes the snapshot and continues', async () => {
    const storage = await storageAheadOfServer();
    const h = session(server.url, { storage });
    await waitFor(() => eventsRequests(RUN).includes(6), 'resume after the snapshot');
    server.resume(RUN);
    await waitFor(() => h.session.getState().status === 'finished', 'finished');
    expect(eventsRequests(RUN)).toEqual([50, 6]);
    expect(assistantText(h.session.getState().messages)).toBe(FakeServer.fullText(20));
  });
});
