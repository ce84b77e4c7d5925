import { startServer } from '@resumable/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DELETE_CHECKS } from '../src/core/base/defaults.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { FakeServer } from './fake-server.js';
import { RUN_TOKENS, tabClients } from './tab-clients.js';
import { trackRejections } from './track-rejections.js';
import { waitFor } from './util.js';
import { LockManagerStandIn } from './web-locks.js';

/**
 * Another tab is untrusted input: a buggy tab, another version of this kit or an extension
 * posts on the conversation's channel. Whatever it posts, a follower keeps taking the real
 * leader's batches (its point moves only where it can check it), and settles a
 * disagreement with the server, a bounded number of times. Real `@resumable/server`, real
 * BroadcastChannel, a Web Locks stand-in.
 */

trackRejections();

/** The server of the case: the real one (threads), or the scripted one (runs, step by step). */
let server: { url: string; close(): Promise<void> };

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  await server.close();
});

/** The cases of the calling `describe` run against the real `@resumable/server`. */
function onRealServer(): void {
  beforeEach(async () => {
    server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The leader here never hangs (it dies: its lock goes at once): no follower's watch over it
 * (`leader-watch.ts`, tabs-takeover) adds a read to the exact logs on a slow machine.
 */
const LIVE_LEADER = { leaderStaleMs: 60_000 };

const {
  clients,
  tab,
  threadWithOneRun,
  runTabs: runOn,
} = tabClients(() => server.url, {
  withMethod: true,
});

/** Posts `messages` on the conversation's channel as a tab that is not one of this kit's. */
function evil(...messages: unknown[]): void {
  const channel = new BroadcastChannel(`resumable-tabs:${server.url}:c`);
  for (const message of messages) channel.postMessage(message);
  channel.close();
}

/** Two tabs on thread `threadId`: `a` leads (its thread stream open at `after`), `b` follows. */
async function twoTabs(threadId: string, token: string, after: number) {
  const storage = createMemoryStorage();
  const manager = new LockManagerStandIn();
  const [logA, logB] = [[] as string[], [] as string[]];
  const locksA = manager.client();
  const a = tab(storage, logA, locksA).chatSession('c', { threadId, token, ...LIVE_LEADER });
  a.retain();
  await waitFor(() => a.run.shared.role === 'leader', 'a leads');
  const events = `GET /threads/${threadId}/events?after=${after}`;
  await waitFor(() => logA.includes(events), `a follows: ${logA}`);
  const b = tab(storage, logB, manager.client()).chatSession('c', {
    threadId,
    token,
    ...LIVE_LEADER,
  });
  b.retain();
  await waitFor(() => b.run.shared.role === 'follower', 'b follows');
  await waitFor(() => logB.length === 2, `b loaded: ${logB}`);
  return { a, b, locksA, logA, logB, clientA: clients[clients.length - 2]! };
}

/** `PATCH` (a rename, with `title`) or `DELETE` of the thread, from another device. */
async function threadRequest(method: string, threadId: string, token: string, title?: string) {
  const response = await fetch(`${server.url}/threads/${threadId}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(title ? { body: JSON.stringify({ title }) } : {}),
  });
  return response.status;
}

/** Two renames through the leader; then `a` dies and `b` resumes the thread stream. */
async function renamesThenTakeover(
  t: Awaited<ReturnType<typeof twoTabs>>,
  threadId: string,
  token: string,
) {
  const thread = `/threads/${threadId}`;
  const { b, logB } = t;
  const seen = logB.length;
  expect(await threadRequest('PATCH', threadId, token, 'Renamed')).toBe(200);
  await waitFor(() => logB.length > seen, `b reloads: ${logB}`);
  await sleep(100);
  const afterFirst = logB.slice(seen);
  // The next rename (4) continues b's point: the history page only, no check.
  expect(await threadRequest('PATCH', threadId, token, 'Renamed again')).toBe(200);
  await waitFor(() => logB.length > seen + afterFirst.length, `b reloads again: ${logB}`);
  await sleep(100);
  expect(logB.slice(seen + afterFirst.length)).toEqual([`GET ${thread}/messages?limit=50`]);
  // b's point is the real one: leading, it resumes after 4.
  t.locksA.kill();
  await t.clientA.dispose();
  await waitFor(() => b.run.shared.role === 'leader', 'b leads');
  await waitFor(() => logB.some((p) => p.includes('/events')), `b resumes: ${logB}`);
  await sleep(100);
  expect(logB.filter((p) => p.includes('/events'))).toEqual([`GET ${thread}/events?after=4`]);
  return afterFirst;
}

const threadBatch = (threadId: string, offset: number) => ({
  v: 1,
  t: 'thread',
  tab: 'evil',
  key: 'c',
  threadId,
  envelopes: [{ offset, event: { type: 'CUSTOM', name: 'x.other', value: {} } }],
});

describe('a thread point another tab made up', () => {
  onRealServer();

  it('a batch far ahead: checked once with the server, not taken; the leader’s next batches are', async () => {
    const { threadId, token, thread } = await threadWithOneRun();
    const t = await twoTabs(threadId, token, 2);
    expect(t.logB).toEqual([`GET ${thread}/messages?limit=50`, `GET ${thread}`]);
    evil(threadBatch(threadId, 1000));
    await sleep(150);
    // One `GET /threads/{id}`: the server's point is b's own (2), nothing to rebuild.
    expect(t.logB.slice(2)).toEqual([`GET ${thread}`]);
    // The rename (3) continues b's point: the history page is read again.
    expect(await renamesThenTakeover(t, threadId, token)).toEqual([
      `GET ${thread}/messages?limit=50`,
    ]);
  });

  it('a made-up batch that continues the point: the leader’s batch for the same offset is a dispute, settled by the server', async () => {
    const { threadId, token, thread } = await threadWithOneRun();
    const t = await twoTabs(threadId, token, 2);
    evil(threadBatch(threadId, 3));
    await sleep(150);
    expect(t.logB).toEqual([`GET ${thread}/messages?limit=50`, `GET ${thread}`]);
    // The real 3 (the rename) is told differently: b asks the server (3) and rebuilds what it
    // shows from it — the run to join, the history page.
    const afterFirst = await renamesThenTakeover(t, threadId, token);
    expect(afterFirst.sort()).toEqual(
      [`GET ${thread}`, `GET ${thread}`, `GET ${thread}/messages?limit=50`].sort(),
    );
  });
});

describe('a run another tab’s thread batch names by an id that is not a wire id', () => {
  onRealServer();

  it('costs no read', async () => {
    const { threadId, token } = await threadWithOneRun();
    const t = await twoTabs(threadId, token, 2);
    const value = { runId: 'x y', messages: [{ id: 'u-evil', role: 'user', content: 'EVIL' }] };
    const event = { type: 'CUSTOM', name: 'resumable.run_started', value };
    evil({ ...threadBatch(threadId, 3), envelopes: [{ offset: 3, event }] });
    await sleep(300);
    expect(t.logB.slice(2)).toEqual([]);
  });
});

/** `a` leads, `b` follows a run `a` sent, both at 4 (the scripted server). */
async function runTabs() {
  const fake = await new FakeServer({ tokens: RUN_TOKENS, intervalMs: 1 }).start();
  server = fake;
  return runOn(fake, { chat: LIVE_LEADER });
}

const content = (offset: number, runId: string, delta: string) => ({
  offset,
  event: { type: 'TEXT_MESSAGE_CONTENT', messageId: `a-${runId}`, delta },
});

describe('a thread deletion another tab announces', () => {
  onRealServer();

  it('made up: the follower asks the server, a bounded number of times, and keeps its chat', async () => {
    const { threadId, token, thread } = await threadWithOneRun();
    const t = await twoTabs(threadId, token, 2);
    const deleted = {
      type: 'CUSTOM',
      name: 'resumable.history_changed',
      value: { reason: 'deleted' },
    };
    // Three of them: one check for the thread, not one per batch (18 reads at once before).
    for (const offset of [3, 4, 5]) {
      evil({ ...threadBatch(threadId, offset), envelopes: [{ offset, event: deleted }] });
    }
    await waitFor(() => t.logB.length === 2 + DELETE_CHECKS, `b checks: ${t.logB}`);
    await sleep(200);
    expect(t.logB.slice(2)).toEqual(Array(DELETE_CHECKS).fill(`GET ${thread}`));
    expect(t.b.getState()).toMatchObject({ threadId, token, error: null });
    expect(t.b.getState().messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('real: the follower’s chat ends with thread_not_found', async () => {
    const { threadId, token, thread } = await threadWithOneRun();
    const t = await twoTabs(threadId, token, 2);
    expect(await threadRequest('DELETE', threadId, token)).toBe(204);
    await waitFor(() => t.b.getState().error?.code === 'thread_not_found', 'b ends');
    expect(t.logB.slice(2)).toEqual([`GET ${thread}`]);
  });
});

describe('a run offset another tab made up', () => {
  it('made-up events that continue the offset (and end the run): the leader’s events for the same offsets are a dispute, the server’s snapshot wins', async () => {
    const t = await runTabs();
    const { runId } = t;
    evil(
      t.batch([
        content(5, runId, 'EVIL '),
        { offset: 6, event: { type: 'TEXT_MESSAGE_END', messageId: `a-${runId}` } },
        { offset: 7, event: { type: 'RUN_FINISHED', threadId: 't', runId } },
      ]),
    );
    await waitFor(() => t.b.run.getState().status === 'finished', 'b took the made-up end');
    expect(t.text(t.b)).toBe('tok0 tok1 EVIL ');
    t.fake.step(runId, 3); // the real 5–7: tok2…tok4
    await waitFor(() => t.text(t.b) === FakeServer.fullText(5), `b rebuilt: ${t.text(t.b)}`);
    expect(t.b.run.getState().status).toBe('running');
    expect(t.checks()).toBe(1);
    await t.finish();
    expect(t.checks()).toBe(1);
  });

  it('a batch far ahead, a snapshot made up for b: neither is taken; one snapshot read from the server', async () => {
    const t = await runTabs();
    const { runId } = t;
    evil(t.batch([{ offset: 1000, event: { type: 'RUN_FINISHED', threadId: 't', runId } }]), {
      v: 1,
      t: 'snapshot',
      tab: 'evil',
      key: 'c',
      to: t.bTab,
      snapshot: {
        runId,
        threadId: t.b.run.getState().threadId,
        status: 'finished',
        lastOffset: 1000,
        messages: [{ id: 'x', role: 'assistant', content: 'EVIL' }],
      },
    });
    await sleep(150);
    expect(t.text(t.b)).toBe('tok0 tok1 ');
    expect(t.b.run.getState().run.offset).toBe(4);
    expect(t.checks()).toBe(1);
    await t.finish();
    expect(t.checks()).toBe(1);
  });
});

describe('messages of the wrong shape from another tab', () => {
  it('are dropped, or cost a bounded number of reads: no throw, no loop, exact text in both tabs', async () => {
    const t = await runTabs();
    const { runId } = t;
    const threadId = t.b.run.getState().threadId!;
    const base = { v: 1, tab: 'evil', key: 'c' };
    const ok = (offset: number) => content(offset, runId, 'EVIL ');
    const heard: { t?: string; tab?: string }[] = [];
    const listen = new BroadcastChannel(`resumable-tabs:${server.url}:c`);
    listen.onmessage = (event) => heard.push(event.data);
    evil(
      null,
      'x',
      7,
      [],
      {},
      ...[null, 'x', [], [ok(5), ok(5)], [ok(6), ok(5)], [{ offset: '5', event: ok(5).event }]].map(
        (envelopes) => t.batch(envelopes),
      ),
      t.batch([{ offset: 5, event: null }]),
      t.batch([{ offset: 5, event: { type: 5 } }]),
      t.batch([{ offset: -1, event: ok(5).event }]),
      t.batch([{ offset: 1.5, event: ok(5).event }]),
      t.batch(Array.from({ length: 501 }, (_, i) => ok(5 + i))),
      { ...t.batch([ok(5)]), runId: '__proto__' },
      { ...t.batch([ok(5)]), runId: 'another-run-0123456789' },
      { ...t.batch([ok(5)]), runId: 'x'.repeat(300) },
      { ...base, t: 'thread', threadId: '__proto__', envelopes: [ok(1)] },
      { ...base, t: 'thread', threadId, envelopes: { length: 1e9 } },
      { ...base, t: 'lead', run: 'x', offset: 5 },
      { ...base, t: 'lead', run: null, offset: -1 },
      { ...base, t: 'lead', run: null, offset: '5' },
      { ...base, t: 'lead', run: { runId, threadId, token: null, prompt: null }, offset: 1e300 },
      { ...base, t: 'snapshot', to: '__proto__', snapshot: {} },
      { ...base, t: 'snapshot', to: t.bTab, snapshot: null },
      { ...base, t: '__proto__' },
      ...Array.from({ length: 50 }, () => ({ ...base, t: 'sync', runId, offset: 0 })),
      ...Array.from({ length: 50 }, (_, i) => ({ ...base, tab: `evil-${i}`, t: 'hello' })),
    );
    await sleep(300);
    listen.close();
    expect(t.text(t.b)).toBe('tok0 tok1 ');
    expect(t.b.run.getState().run.offset).toBe(4);
    // The leader: one snapshot for 50 `sync`s; a `lead` per `hello` (it answers each tab).
    expect(heard.filter((m) => m?.t === 'snapshot' && m.tab !== 'evil')).toHaveLength(1);
    // The `lead` claiming 1e300 is not an offset: dropped; nothing asked of the server.
    expect(t.checks()).toBe(0);
    await t.finish();
  });
});

describe('ids another tab names that are not wire ids (isWireId)', () => {
  it('a run the server would refuse by its id costs no read, in either tab', async () => {
    const t = await runTabs();
    const threadId = t.b.run.getState().threadId!;
    const seen = t.logs.map((log) => log.length);
    const prompt = { id: 'p-evil', role: 'user', content: 'EVIL' };
    const run = { runId: 'not a wire id', threadId, token: null, prompt };
    evil({ v: 1, t: 'lead', tab: 'evil', key: 'c', run, offset: 0 });
    const chat = new BroadcastChannel(`resumable:${server.url}`);
    for (const runId of ['also/not/one', 'r'.repeat(201), '..']) {
      chat.postMessage({ type: 'run', key: 'c', runId, threadId, token: null });
    }
    chat.postMessage({ type: 'run', key: 'c', runId: 'fake-run-0123456789', threadId: 'a b' });
    chat.close();
    await sleep(300);
    expect(t.logs.map((log, i) => log.slice(seen[i]))).toEqual([[], []]);
    expect(t.b.run.getState().runId).toBe(t.runId);
    await t.finish();
  });
});

describe('a run another tab announces that the server does not know', () => {
  it('does not take the follower off the run it follows', async () => {
    const t = await runTabs();
    const threadId = t.b.run.getState().threadId!;
    const fake = 'fake-run-0123456789abcdef';
    const prompt = { id: 'p-evil', role: 'user', content: 'EVIL' };
    evil({
      v: 1,
      t: 'lead',
      tab: 'evil',
      key: 'c',
      run: { runId: fake, threadId, token: null, prompt },
      offset: 0,
    });
    const chat = new BroadcastChannel(`resumable:${server.url}`);
    chat.postMessage({
      type: 'run',
      key: 'c',
      runId: `${fake}-2`,
      threadId: 'another-thread',
      token: null,
      prompt: 'x',
    });
    chat.close();
    await sleep(300);
    expect(t.b.run.getState().runId).toBe(t.runId);
    expect(t.text(t.b)).toBe('tok0 tok1 ');
    await t.finish();
  });
});
