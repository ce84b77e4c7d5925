/**
 * #13 on the real server (scripted agent, `forwardedProps.script.interrupt`): interrupts
 * answered exactly once across reloads, offline spells and tabs. A "reload" is a new
 * client on the same storage (what IndexedDB keeps), the old one disposed.
 */
import { type RunningServer, startServer } from '@resumable/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualSignal } from '../src/core/base/env.js';
import { createManualSignal } from '../src/core/base/env.js';
import type { ChatSession } from '../src/core/chat/chat-session.js';
import type { ResumableClient } from '../src/core/client/resumable-client.js';
import { BrowserToolRunner } from '../src/core/interrupts/browser-tools.js';
import { InterruptSession } from '../src/core/interrupts/interrupt-session.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { assistantText, pageClient, waitFor } from './util.js';

let server: RunningServer;
/** `POST /runs` bodies the clients sent, in order. */
let posts: { runId: string; resume?: unknown }[] = [];
/** While set, every request waits for it (a paused, slow server). */
let gate: Promise<void> | null = null;
const clients: ResumableClient[] = [];

const countingFetch: typeof fetch = async (input, init) => {
  if (gate) await gate;
  if (init?.method === 'POST' && String(input).endsWith('/runs')) {
    posts.push(JSON.parse(String(init.body)));
  }
  return fetch(input, init);
};

beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
  posts = [];
  gate = null;
});
afterEach(async () => {
  gate = null;
  for (const c of clients.splice(0)) await c.dispose();
  await server.close();
});

interface Tab {
  chat: ChatSession;
  hitl: InterruptSession;
  online: ManualSignal;
  release: () => void;
}

function openTab(
  storage: RecordStorage,
  interrupt: 'tool_approval' | 'client_tool' | 'question',
  online = createManualSignal(true),
  extra: Record<string, unknown> = {},
): Tab {
  const client = pageClient(server.url, storage, { online, fetch: countingFetch });
  clients.push(client);
  const chat = client.chatSession('hitl', {
    runInput: { forwardedProps: { script: { interrupt, tokensPerSecond: 0 } }, ...extra },
  });
  const hitl = new InterruptSession(chat);
  const release = hitl.retain();
  return { chat, hitl, online, release };
}

async function reload(tab: Tab): Promise<void> {
  tab.release();
  const i = clients.findIndex((c) => c.chatSession('hitl') === tab.chat);
  await clients.splice(i, 1)[0]!.dispose();
}

const open = (tab: Tab) => tab.hitl.getState().interrupts.filter((i) => i.status === 'open');
const ASKED = 'I can delete notes/old-draft.md for you. It needs your approval.';

async function askApproval(tab: Tab): Promise<string> {
  await tab.chat.send('please delete the old draft');
  await waitFor(() => open(tab).length === 1, 'the approval is open', 10_000);
  // The thread's read may show it open before the run's own events have arrived.
  await waitFor(() => tab.chat.run.getState().status === 'finished', 'the ask streamed', 10_000);
  return open(tab)[0]!.id;
}

async function threadRuns(tab: Tab): Promise<{ runId: string; status: string }[]> {
  const { threadId, token } = tab.chat.getState();
  const res = await fetch(`${server.url}/threads/${threadId}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  return ((await res.json()) as { runs: { runId: string; status: string }[] }).runs;
}

describe('approvals', () => {
  it('after a reload the open approval is there from the persisted records before any answer from the server', async () => {
    const storage = createMemoryStorage();
    const one = openTab(storage, 'tool_approval');
    const id = await askApproval(one);
    await one.chat.run.flush();
    await reload(one);

    let unpause!: () => void;
    gate = new Promise((r) => (unpause = r));
    const two = openTab(storage, 'tool_approval');
    await waitFor(() => two.hitl.getState().hydrated, 'records read');
    await waitFor(() => open(two).length === 1, 'approval restored');
    expect(open(two)).toMatchObject([
      {
        id,
        reason: 'tool_approval',
        message: 'Delete notes/old-draft.md?',
        tool: { name: 'delete_file', arguments: '{"path":"notes/old-draft.md"}' },
        pending: null,
      },
    ]);
    expect(assistantText(two.chat.getState().messages)).toBe(ASKED);
    unpause();
    gate = null;
    await two.hitl.resolve(id, { approved: false, reason: 'keep it' });
    await waitFor(
      () => two.chat.run.getState().status === 'finished' && !two.chat.getState().outbox.length,
      'denied',
      10_000,
    );
    await waitFor(() => two.chat.run.getState().runId !== posts[0]!.runId, 'continuation');
    await waitFor(() => two.chat.run.getState().status === 'finished', 'continuation ends', 10_000);
    expect(assistantText(two.chat.getState().messages)).toBe(
      `${ASKED}I did not delete notes/old-draft.md: you denied it (keep it).`,
    );
    expect(two.hitl.getState().interrupts).toMatchObject([
      {
        id,
        status: 'resolved',
        answeredHere: true,
        answer: { payload: { approved: false, reason: 'keep it' } },
      },
    ]);
  });

  it('an approval clicked offline is kept over a reload and sent once when back online', async () => {
    const storage = createMemoryStorage();
    const one = openTab(storage, 'tool_approval');
    const id = await askApproval(one);
    one.online.set(false);
    await one.hitl.resolve(id, { approved: true });
    expect(open(one)).toMatchObject([{ id, pending: 'queued' }]);
    await reload(one);

    const two = openTab(storage, 'tool_approval', createManualSignal(false));
    await waitFor(() => open(two)[0]?.pending === 'queued', 'the answer survived the reload');
    expect(posts.filter((p) => p.resume)).toEqual([]);
    two.online.set(true);
    await waitFor(
      () =>
        two.hitl.getState().interrupts[0]?.status === 'resolved' &&
        two.chat.run.getState().status === 'finished',
      'approved',
      10_000,
    );
    await waitFor(() => assistantText(two.chat.getState().messages).endsWith('.'), 'reply', 10_000);
    expect(assistantText(two.chat.getState().messages)).toBe(
      `${ASKED}Approved: I deleted notes/old-draft.md.`,
    );
    const resumes = posts.filter((p) => p.resume);
    expect(resumes).toEqual([
      expect.objectContaining({
        resume: [{ interruptId: id, status: 'resolved', payload: { approved: true } }],
      }),
    ]);
    expect((await threadRuns(two)).map((r) => r.runId)).toEqual([
      resumes[0]!.runId,
      posts[0]!.runId,
    ]);
  });

  it('two tabs approve at once: one continuation; the loser follows it (409 interrupt_answered)', async () => {
    const a = openTab(createMemoryStorage(), 'tool_approval');
    const id = await askApproval(a);
    const { threadId, token } = a.chat.getState();
    const bClient = pageClient(server.url, createMemoryStorage(), { fetch: countingFetch });
    clients.push(bClient);
    const bChat = bClient.chatSession('other-device', { threadId: threadId!, token: token! });
    const bHitl = new InterruptSession(bChat);
    bHitl.retain();
    await waitFor(
      () => bHitl.getState().interrupts[0]?.status === 'open',
      'device two sees it',
      10_000,
    );
    await Promise.all([
      a.hitl.resolve(id, { approved: true }),
      bHitl.resolve(id, { approved: true }),
    ]);
    const final = `${ASKED}Approved: I deleted notes/old-draft.md.`;
    await waitFor(() => assistantText(a.chat.getState().messages) === final, 'tab a', 10_000);
    await waitFor(() => assistantText(bChat.getState().messages) === final, 'tab b', 10_000);
    expect(a.chat.run.getState().runId).toBe(bChat.run.getState().runId);
    expect(posts.filter((p) => p.resume)).toHaveLength(2);
    expect(await threadRuns(a)).toHaveLength(2);
    const winner = a.chat.run.getState().runId;
    await waitFor(() => bHitl.getState().interrupts[0]?.status === 'resolved', 'b resolved');
    await waitFor(() => a.hitl.getState().interrupts[0]?.status === 'resolved', 'a resolved');
    const views = [a.hitl.getState().interrupts[0]!, bHitl.getState().interrupts[0]!];
    expect(views.map((v) => v.answeredBy)).toEqual([winner, winner]);
    expect(views.map((v) => v.answeredHere).sort()).toEqual([false, true]);
    expect(a.chat.getState().error ?? bChat.getState().error).toBeNull();
  });
});

describe('browser tools', () => {
  const tools = [
    { name: 'read_clipboard', description: 'reads it', parameters: { type: 'object' } },
  ];

  async function startTool(storage: RecordStorage, execute: () => unknown, idempotent: boolean) {
    const tab = openTab(storage, 'client_tool', undefined, { tools });
    const runner = new BrowserToolRunner(tab.hitl, null);
    runner.setTools({ read_clipboard: { execute, idempotent } });
    const stop = runner.start();
    return { tab, runner, stop };
  }

  /**
   * A tool that hangs in the first page (the page goes away mid-run), then the reloaded
   * page, whose tool answers `result`; `executions` counts both pages' calls.
   */
  async function cutByReload(idempotent: boolean, result: unknown) {
    const storage = createMemoryStorage();
    const count = { executions: 0 };
    const hang = () => {
      count.executions++;
      return new Promise(() => {});
    };
    const first = await startTool(storage, hang, idempotent);
    await first.tab.chat.send('paste it');
    await waitFor(() => count.executions === 1, 'the tool runs', 10_000);
    first.stop();
    await reload(first.tab);
    const answer = () => {
      count.executions++;
      return result;
    };
    return { count, second: await startTool(storage, answer, idempotent) };
  }

  it('a result too large for the server is answered as an error, not refused', async () => {
    const { tab } = await startTool(createMemoryStorage(), () => 'x'.repeat(20_000), false);
    await tab.chat.send('paste it');
    const text =
      'The page could not run read_clipboard: the result is 20013 bytes of JSON, over the limit of 16384.';
    await waitFor(
      () => assistantText(tab.chat.getState().messages) === text,
      'continuation',
      10_000,
    );
    expect(tab.chat.getState().error).toBeNull();
  });

  it('a tool cut by a reload is not run again; the user cancels it instead', async () => {
    const { count, second } = await cutByReload(false, 'again');
    await waitFor(() => open(second.tab)[0]?.execution === 'interrupted', 'asks the user', 10_000);
    expect(count.executions).toBe(1);
    await second.tab.hitl.cancel(open(second.tab)[0]!.id);
    const text = 'read_clipboard was cancelled, so I go on without it.';
    await waitFor(
      () => assistantText(second.tab.chat.getState().messages) === text,
      'continuation',
      10_000,
    );
    expect(count.executions).toBe(1);
    expect(posts.filter((p) => p.resume)).toHaveLength(1);
  });

  it('an idempotent tool cut by a reload runs once more and its result is the answer', async () => {
    const { count, second } = await cutByReload(true, { text: 'hello' });
    const text = 'The page ran read_clipboard and returned {"text":"hello"}.';
    await waitFor(
      () => assistantText(second.tab.chat.getState().messages) === text,
      'continuation',
      10_000,
    );
    expect(count.executions).toBe(2);
    expect(posts.filter((p) => p.resume).map((p) => p.resume)).toEqual([
      [
        {
          interruptId: expect.stringMatching(/^tool-/),
          status: 'resolved',
          payload: { result: { text: 'hello' } },
        },
      ],
    ]);
  });
});
