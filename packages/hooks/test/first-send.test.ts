import { type RunningServer, startServer } from '@resumable/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResumableClient } from '../src/core/client/resumable-client.js';
import { interruptSessionOf } from '../src/core/interrupts/interrupt-session.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { pageClient, waitFor } from './util.js';

/**
 * The first send of a new conversation against the real `@resumable/server`: the thread's
 * id and its token arrive together in the POST's answer, so nothing asks for the thread
 * before it can say who it is (once, a `GET /threads/{id}` went out without the token and
 * was answered 401 on every first send).
 */

let server: RunningServer;
let client: ResumableClient | null = null;

beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
});
afterEach(async () => {
  await client?.dispose();
  client = null;
  await server.close();
});

describe('a first send on a new conversation', () => {
  it('makes exactly the POST, then the run, thread and interrupt reads, all with the token (no 401)', async () => {
    /** `METHOD path auth status`, in the order the answers came. */
    const log: string[] = [];
    client = pageClient(server.url, createMemoryStorage(), {
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const auth = new Headers(init?.headers).get('authorization');
        const path = String(input)
          .slice(server.url.length)
          .replace(/[?].*$/, '');
        log.push(`${init?.method ?? 'GET'} ${path} ${auth ? 'token' : 'none'} ${response.status}`);
        return response;
      },
    });
    const chat = client.chatSession('new', {
      runInput: { forwardedProps: { script: { tokens: 5, tokensPerSecond: 200, seed: 1 } } },
    });
    chat.retain();
    // As the UI holds it: its interrupts read the thread as soon as the chat has one.
    interruptSessionOf(chat).retain();
    const runId = await chat.send('hello');
    await waitFor(() => chat.run.getState().status === 'finished', 'the run ends', 10_000);
    const threadId = chat.getState().threadId;
    await waitFor(() => log.length >= 5, `five requests: ${JSON.stringify(log)}`);
    // Anything late (a retry after a refusal) would show here.
    await new Promise((r) => setTimeout(r, 200));
    // In the order the answers came, which varies: the request set is what is pinned.
    expect(log.sort()).toEqual(
      [
        'POST /runs none 201',
        `GET /runs/${runId}/events token 200`,
        // The interrupts' read of the thread, and the thread stream's starting offset.
        `GET /threads/${threadId} token 200`,
        `GET /threads/${threadId} token 200`,
        `GET /threads/${threadId}/events token 200`,
      ].sort(),
    );
    expect(chat.getState().token).toBe(chat.run.token);
    expect(chat.run.token).toMatch(/^.{16,}$/);
  });
});
