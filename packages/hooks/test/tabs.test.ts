import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TabChannel } from '../src/core/base/env.js';
import { createEnvironment } from '../src/core/base/env.js';
import type { ChatSession } from '../src/core/chat/chat-session.js';
import type { ResumableClient } from '../src/core/client/resumable-client.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { FakeServer } from './fake-server.js';
import { assistantText, fastClient, waitFor, watchRunWrites } from './util.js';
import { LockManagerStandIn } from './web-locks.js';

/**
 * Tabs of one origin on one conversation, in one process: a real BroadcastChannel (Node 20
 * has it), one shared storage (as IndexedDB is), and a Web Locks stand-in (Node 20 has no
 * `navigator.locks`) whose `kill()` is a tab dying.
 */

const TOKENS = 40;
let server: FakeServer;
let manager: LockManagerStandIn;
let shared: RecordStorage;
const opened: ResumableClient[] = [];

interface Tab {
  chat: ChatSession;
  client: ResumableClient;
  locks: ReturnType<LockManagerStandIn['client']>;
  /** Posts from now on are lost (a tab dying between folding a batch and posting it). */
  mute(): void;
  /** Writes of run records by this tab. */
  runWrites(): number;
}

function openTab(options: { shareTabs?: boolean } = {}): Tab {
  const locks = manager.client();
  let muted = false;
  let writes = 0;
  const real = createEnvironment();
  const client = fastClient(
    server.url,
    watchRunWrites(shared, () => writes++),
    {
      locks,
      channel(name): TabChannel | null {
        const channel = real.channel(name);
        if (!channel) return null;
        return { ...channel, post: (message) => !muted && channel.post(message) };
      },
    },
  );
  opened.push(client);
  all.push(null as unknown as Tab);
  const chat = client.chatSession('c', options);
  chat.retain();
  const tab: Tab = {
    chat,
    client,
    locks,
    mute: () => {
      muted = true;
    },
    runWrites: () => writes,
  };
  all[all.length - 1] = tab;
  return tab;
}

let all: Tab[] = [];
const describe3 = () =>
  `${all.map((t) => `${role(t)} ${t.chat.run.getState().runId?.slice(0, 6)} ${t.chat.run.getState().run.offset} ${t.chat.run.getState().connection.phase} ${JSON.stringify(text(t).slice(-12))}`).join(' | ')} ${JSON.stringify(server.requests.map((r) => `${r.method} ${r.path}:${r.after}`))}`;
const role = (tab: Tab) => tab.chat.run.shared.role;
const text = (tab: Tab) => assistantText(tab.chat.getState().messages);
const eventStreams = () => server.requests.filter((r) => /^\/runs\/[^/]+\/events$/.test(r.path));

beforeEach(async () => {
  server = await new FakeServer({ tokens: TOKENS, intervalMs: 1 }).start();
  server.pauseNew = true;
  manager = new LockManagerStandIn();
  shared = createMemoryStorage();
});
afterEach(async () => {
  all = [];
  await Promise.all(opened.splice(0).map((client) => client.dispose()));
  await server.close();
});

describe('one connection per conversation across tabs', () => {
  it('three tabs, one event stream; the leader dies mid-batch, another leads within 1 s from its own offset, all agree', async () => {
    const a = openTab();
    await waitFor(() => role(a) === 'leader', 'a leads');
    const b = openTab();
    await waitFor(() => role(b) === 'follower', 'b follows');
    const c = openTab();
    await waitFor(() => role(c) === 'follower', 'c follows');
    expect(b.chat.run.getState().connection.viaTab).toBe(true);

    await c.chat.send('hello from c');
    const runId = c.chat.run.getState().runId!;
    expect(runId).toMatch(/.{22,}/);
    await waitFor(() => a.chat.run.getState().runId === runId, 'a follows the run c started');
    await waitFor(() => eventStreams().length === 1, 'the leader opened the run stream');
    // Some hostile traffic on the conversation's channel: dropped by every tab.
    const evil = new BroadcastChannel(`resumable-tabs:${server.url}:c`);
    for (const junk of [
      null,
      'x',
      { v: 1, t: 'batch', tab: 'evil', key: 'c', runId, envelopes: [{ offset: 3, event: null }] },
      { v: 1, t: 'lead', tab: 'evil', key: 'c', run: { runId: 'r', threadId: 't', token: 1 } },
      { v: 2, t: 'batch', tab: 'evil', key: 'c', runId, envelopes: [] },
    ]) {
      evil.postMessage(junk);
    }
    server.step(runId, 12); // RUN_STARTED, TEXT_MESSAGE_START, tok0…tok9
    const first10 = FakeServer.fullText(10);
    for (const tab of [a, b, c])
      await waitFor(() => text(tab) === first10, `ten tokens everywhere: ${describe3()}`);
    expect(eventStreams().map((r) => r.after)).toEqual([0]);
    expect(c.chat.run.getState().connection.phase).toBe('streaming');

    // a folds 5 more events and dies before posting them.
    a.mute();
    server.step(runId, 5);
    await waitFor(() => a.chat.run.getState().run.offset === 17, 'a at 17');
    expect([b, c].map((t) => t.chat.run.getState().run.offset)).toEqual([12, 12]);
    const died = Date.now();
    a.locks.kill();
    await a.client.dispose();
    await waitFor(() => role(b) === 'leader', 'b leads', 1000);
    expect(Date.now() - died).toBeLessThan(1000);
    // b resumed from its own resume point, not a's.
    await waitFor(() => eventStreams().length === 2, 'b opened its stream');
    expect(eventStreams().map((r) => r.after)).toEqual([0, 12]);
    expect(role(c)).toBe('follower');

    server.resume(runId);
    for (const tab of [b, c]) {
      await waitFor(() => tab.chat.run.getState().status === 'finished', 'finished');
    }
    const full = FakeServer.fullText(TOKENS);
    expect(server.text(runId)).toBe(full);
    expect(text(b)).toBe(full);
    expect(text(c)).toBe(full);
    expect(c.chat.getState().messages.map((m) => [m.role, m.id])).toEqual(
      b.chat.getState().messages.map((m) => [m.role, m.id]),
    );
    expect(c.chat.getState().messages[0]).toMatchObject({ role: 'user', content: 'hello from c' });
    // Only a leader writes run records; c never led.
    expect(c.runWrites()).toBe(0);
    expect(b.runWrites()).toBeGreaterThan(0);
    expect(eventStreams()).toHaveLength(2);
    evil.close();
  });

  it('a leader alone posts no batches; a tab that opens mid-answer follows it to the end', async () => {
    const posted: string[] = [];
    // Listens only: a tab of the conversation is heard once it says something.
    const spy = new BroadcastChannel(`resumable-tabs:${server.url}:c`);
    spy.onmessage = (event) => posted.push(event.data?.t);
    const a = openTab();
    await waitFor(() => role(a) === 'leader', 'a leads');
    await a.chat.send('alone');
    const runId = a.chat.run.getState().runId!;
    server.step(runId, 12); // RUN_STARTED, TEXT_MESSAGE_START, tok0…tok9
    await waitFor(() => text(a) === FakeServer.fullText(10), 'a has ten tokens');
    // Longer than the leader holds batches (TAB_BATCH_EVERY_MS).
    await new Promise((r) => setTimeout(r, 150));
    expect(posted.filter((t) => t === 'batch')).toEqual([]);

    const b = openTab();
    await waitFor(() => role(b) === 'follower', 'b follows');
    await waitFor(() => text(b) === FakeServer.fullText(10), `b caught up: ${describe3()}`);
    server.resume(runId);
    for (const tab of [a, b]) {
      await waitFor(
        () => tab.chat.run.getState().status === 'finished',
        `finished: ${describe3()}`,
      );
    }
    expect(text(a)).toBe(FakeServer.fullText(TOKENS));
    expect(text(b)).toBe(FakeServer.fullText(TOKENS));
    expect(b.chat.run.getState().run.offset).toBe(a.chat.run.getState().run.offset);
    // The rest came through the leader's posts, over the one event stream.
    expect(posted.filter((t) => t === 'batch').length).toBeGreaterThan(0);
    expect(eventStreams().map((r) => r.after)).toEqual([0]);
    spy.close();
  });

  it('with shareTabs: false every tab keeps its own connection, as before', async () => {
    const a = openTab({ shareTabs: false });
    const b = openTab({ shareTabs: false });
    await a.chat.send('solo');
    const runId = a.chat.run.getState().runId!;
    server.resume(runId);
    for (const tab of [a, b]) {
      await waitFor(() => tab.chat.run.getState().status === 'finished', 'finished');
    }
    expect([role(a), role(b)]).toEqual(['solo', 'solo']);
    expect(eventStreams()).toHaveLength(2);
    expect(text(b)).toBe(FakeServer.fullText(TOKENS));
  });
});
