import { type RunningServer, startServer, startServerRun } from '@resumable/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualSignal } from '../src/core/base/env.js';
import type { ChatSession } from '../src/core/chat/chat-session.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import { threadRecordKey } from '../src/core/conversation/thread-follower.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { assistantText, waitFor } from './util.js';

/**
 * A conversation followed as a whole against the real `@resumable/server`: a device that
 * stays open sees runs started on another device, or by the server itself, appear live,
 * through `GET /threads/{id}/events`; its resume point survives a reload.
 */

let server: RunningServer;
const clients: ResumableClient[] = [];
/** Every path each device fetched, in order. */
const fetched = new Map<string, string[]>();

const script = (tokens: number) => ({
  forwardedProps: { script: { tokens, tokensPerSecond: 200, seed: 3 } },
});

function device(name: string, storage: RecordStorage = createMemoryStorage()): ResumableClient {
  const log: string[] = [];
  fetched.set(name, log);
  const client = new ResumableClient({
    endpoint: server.url,
    storage,
    backoff: { initialMs: 10, maxMs: 50 },
    onWarning: (w) => log.push(`warn ${w.code} ${w.message}`),
    env: {
      online: createManualSignal(true),
      visible: createManualSignal(true),
      onPageHide: () => () => {},
      fetch: (input, init) => {
        log.push(String(input).slice(server.url.length));
        return fetch(input, init);
      },
    },
  });
  clients.push(client);
  return client;
}

const text = (chat: ChatSession) => assistantText(chat.getState().messages.slice(-1));
const threadStreams = (name: string) =>
  (fetched.get(name) ?? []).filter((p) => /^\/threads\/[^/]+\/events/.test(p));

async function snapshotText(runId: string, token: string): Promise<string> {
  const response = await fetch(`${server.url}/runs/${runId}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { messages: { role: string; content?: unknown }[] };
  return assistantText(body.messages);
}

beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  fetched.clear();
  await server.close();
});

describe('following a conversation, not a run', () => {
  it('a second device that stays open sees a run started on the first, then one started by the server, live', async () => {
    const phone = device('phone').chatSession('c', { runInput: script(20) });
    phone.retain();
    await phone.send('first, on the phone');
    await waitFor(() => phone.run.getState().status === 'finished', 'first run', 10_000);
    const { threadId, token } = phone.getState();

    const laptop = device('laptop').chatSession('c', {
      threadId: threadId!,
      token: token!,
    });
    laptop.retain();
    await waitFor(() => threadStreams('laptop').length === 1, 'laptop follows the thread');
    // It started at the thread's lastOffset (run_started + run_ended of the first run).
    expect(threadStreams('laptop')).toEqual([`/threads/${threadId}/events?after=2`]);
    await waitFor(() => laptop.getState().messages.length === 2, 'history');

    await phone.send('second, on the phone');
    const second = phone.run.getState().runId!;
    await waitFor(() => laptop.run.getState().runId === second, 'laptop joins the run live');
    await waitFor(() => laptop.run.getState().status === 'finished', 'laptop sees its end', 10_000);
    expect(laptop.getState().messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(laptop.getState().messages[2]).toMatchObject({ content: 'second, on the phone' });
    expect(text(laptop)).toBe(await snapshotText(second, token!));

    const started = await startServerRun(server, {
      threadId: threadId!,
      messages: [{ id: 'job-1', role: 'user', content: 'nightly summary' }],
      ...script(15),
    });
    for (const chat of [laptop, phone]) {
      await waitFor(() => chat.run.getState().runId === started.runId, 'the server run appears');
      await waitFor(() => chat.run.getState().status === 'finished', 'server run ends', 10_000);
      expect(
        chat
          .getState()
          .messages.map((m) => m.id)
          .slice(-2, -1),
      ).toEqual(['job-1']);
      expect(text(chat)).toBe(await snapshotText(started.runId, token!));
    }
    // Still the one thread stream each: nothing reloaded, nothing reconnected.
    expect(threadStreams('laptop')).toHaveLength(1);
    expect(threadStreams('phone')).toHaveLength(1);
  });

  it('the thread resume point is persisted: a reload resumes after it and catches up on what it missed', async () => {
    const storage = createMemoryStorage();
    const first = device('first', storage).chatSession('c', { runInput: script(5) });
    first.retain();
    await first.send('hello');
    await waitFor(() => first.run.getState().status === 'finished', 'run', 10_000);
    const { threadId, token } = first.getState();
    await waitFor(
      () => threadStreams('first').length === 1,
      `thread followed ${JSON.stringify(fetched.get('first'))}`,
    );
    // The run_ended (offset 2) reached the thread stream and was persisted.
    const stored = () => storage.get(threadRecordKey('c'));
    await expectEventually(async () => (await stored()) as unknown, {
      v: 1,
      key: 'c',
      threadId,
      offset: 2,
    });
    await clients[0]!.dispose();

    // While "closed", the server runs a job in the thread.
    const job = await startServerRun(server, {
      threadId: threadId!,
      messages: [{ id: 'job-2', role: 'user', content: 'while you were away' }],
      ...script(5),
    });
    await expectEventually(async () => (await snapshotText(job.runId, token!)).length > 0, true);

    const reloaded = device('reloaded', storage).chatSession('c');
    reloaded.retain();
    await waitFor(() => threadStreams('reloaded').length === 1, 'resumed');
    expect(threadStreams('reloaded')).toEqual([`/threads/${threadId}/events?after=2`]);
    await waitFor(
      () => reloaded.getState().messages.some((m) => m.id === 'job-2'),
      'the job run is shown',
      10_000,
    );
  });
});

async function expectEventually<T>(read: () => Promise<T>, expected: T, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    try {
      expect(last).toEqual(expected);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  expect(last).toEqual(expected);
}
