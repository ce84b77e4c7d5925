import { expect } from 'vitest';
import type { ResumableEnvironment, TabLocks } from '../src/core/base/env.js';
import type { ChatSessionOptions } from '../src/core/chat/options.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { FakeServer } from './fake-server.js';
import { assistantText, fastClient, waitFor } from './util.js';
import { LockManagerStandIn } from './web-locks.js';

/** Tokens of the scripted server's runs in `runTabs` (its run ends at offset RUN_TOKENS + 4). */
export const RUN_TOKENS = 12;

type Env = Partial<ResumableEnvironment>;

/**
 * Tabs of one page against a test server (`url()`: the case's): clients whose fetches are
 * logged (paths without the endpoint, with the method when `withMethod`; `env` for the rest of
 * the tab's world: its channel, its visibility), kept in `clients`
 * for the file's `afterEach`; and a thread with one finished run, made by another device.
 */
export function tabClients(url: () => string, { withMethod = false } = {}) {
  const clients: { dispose(): Promise<void> }[] = [];

  function tab(
    storage: RecordStorage,
    log: string[],
    locks: TabLocks | null = null,
    env: Env = {},
  ) {
    const client = fastClient(url(), storage, {
      ...env,
      locks,
      fetch: (input, init) => {
        const path = String(input).slice(url().length);
        log.push(withMethod ? `${init?.method ?? 'GET'} ${path}` : path);
        return fetch(input, init);
      },
    });
    clients.push(client);
    return client;
  }

  /** A thread with one finished run (its stream's last offset is 2), from another device. */
  async function threadWithOneRun() {
    const first = tab(createMemoryStorage(), []).chatSession('c', {
      runInput: { forwardedProps: { script: { tokens: 3, tokensPerSecond: 200, seed: 1 } } },
    });
    first.retain();
    await first.send('hello');
    await waitFor(() => first.run.getState().status === 'finished', 'first run', 10_000);
    const { threadId, token } = first.getState();
    return { threadId: threadId!, token: token!, thread: `/threads/${threadId}` };
  }

  /**
   * Two tabs on one conversation over the scripted server `fake` (`url()` must be its):
   * `a` leads, `b` follows a run `a` sent, both at offset 4 (the run paused there), `b`'s
   * join over in one read. `chat`: both chats' options; `envA`/`envB`: each tab's world.
   */
  async function runTabs(
    fake: FakeServer,
    {
      chat = {},
      envA = {},
      envB = {},
    }: { chat?: Partial<ChatSessionOptions>; envA?: Env; envB?: Env } = {},
  ) {
    fake.pauseNew = true;
    const storage = createMemoryStorage();
    const manager = new LockManagerStandIn();
    const [logA, logB] = [[] as string[], [] as string[]];
    // b's tab id, as any tab on the channel learns it (from b's `hello`).
    const ids: string[] = [];
    const spy = new BroadcastChannel(`resumable-tabs:${fake.url}:c`);
    spy.onmessage = (event) => {
      if (event.data?.t === 'hello') ids.push(event.data.tab);
    };
    const a = tab(storage, logA, manager.client(), envA).chatSession('c', chat);
    a.retain();
    await waitFor(() => a.run.shared.role === 'leader', 'a leads');
    const b = tab(storage, logB, manager.client(), envB).chatSession('c', chat);
    b.retain();
    await waitFor(() => b.run.shared.role === 'follower' && ids.length === 1, 'b follows');
    spy.close();
    await a.send('hello');
    const runId = a.run.getState().runId!;
    await waitFor(() => b.run.getState().runId === runId, 'b follows the run');
    fake.step(runId, 4); // RUN_STARTED, TEXT_MESSAGE_START, tok0, tok1
    const text = (chat: typeof b) => assistantText(chat.getState().messages);
    await waitFor(() => text(b) === 'tok0 tok1 ', `b at 4: ${text(b)}`);
    await waitFor(
      () => text(a) === 'tok0 tok1 ',
      `a at 4: ${text(a)} ${a.run.getState().run.offset}`,
    );
    const snapshots = () => logB.filter((p) => p === `GET /runs/${runId}`).length;
    // b's join is over — one read: the announced run checked (announced-run.ts), its snapshot
    // kept for the join — and what follows comes through the leader.
    await waitFor(() => snapshots() === 1, `b joined: ${logB}`);
    await new Promise((r) => setTimeout(r, 100));
    expect(snapshots()).toBe(1);
    const before = snapshots();
    /** The rest of the run; both tabs end with the server's whole text. */
    const finish = async () => {
      fake.resume(runId);
      for (const chat of [a, b]) {
        await waitFor(() => chat.run.getState().status === 'finished', `finished: ${text(chat)}`);
      }
      expect(text(b)).toBe(FakeServer.fullText(RUN_TOKENS));
      expect(text(a)).toBe(FakeServer.fullText(RUN_TOKENS));
      expect(b.run.getState().run.offset).toBe(RUN_TOKENS + 4);
    };
    const batch = (envelopes: unknown) => ({
      v: 1,
      t: 'batch',
      tab: 'evil',
      key: 'c',
      runId,
      envelopes,
    });
    return {
      fake,
      a,
      b,
      runId,
      bTab: ids[0]!,
      text,
      finish,
      batch,
      checks: () => snapshots() - before,
      logs: [logA, logB] as const,
    };
  }

  return { clients, tab, threadWithOneRun, runTabs };
}
