/**
 * A chat let go of — its last holder released, or disposed — sends nothing more from its
 * outbox: no `POST /runs` leaves after the release (the record read finishing later, a
 * retry the policy had scheduled). The outbox is kept, and goes out once when the chat is
 * held again. Real `ChatSession` against a `node:http` server on 127.0.0.1.
 */

import { describe, expect, it } from 'vitest';
import {
  BOUND_MS,
  hostileServerPerTest,
  server,
  shown,
  stops,
  threadChat,
} from './hostile-harness.js';
import { storedChat } from './hostile-server.js';
import { waitFor } from './util.js';

hostileServerPerTest();

const QUEUED = { runId: 'run-queued-0123456789abcdef', text: 'queued', createdAt: 1 };
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a chat let go of sends nothing from its outbox', () => {
  it('released before its stored outbox was read: no POST; held again, sent once', async () => {
    const chat = threadChat(await storedChat({ outbox: [QUEUED] }));
    chat.retain()();
    await pause(300);
    expect(server.count('start')).toBe(0);
    expect(chat.getState().outbox.map((o) => o.text)).toEqual(['queued']);

    stops.push(chat.retain());
    await waitFor(() => shown(chat).length === 2, 'prompt and reply', BOUND_MS);
    expect(shown(chat)).toEqual(['user: queued', 'assistant: second']);
    expect(server.count('start')).toBe(1);
    expect(chat.getState().outbox).toEqual([]);
  });

  it('disposed before its stored outbox was read: no POST', async () => {
    const chat = threadChat(await storedChat({ outbox: [QUEUED] }));
    stops.push(chat.retain());
    chat.dispose();
    await pause(300);
    expect(server.count('start')).toBe(0);
  });

  it('a prompt sent to a released chat: shown queued, not sending; no POST; held again, sent once', async () => {
    const chat = threadChat(await storedChat({ outbox: [] }));
    const release = chat.retain();
    await waitFor(() => chat.getState().hydrated, 'the records read', BOUND_MS);
    release();
    await pause(20);
    await chat.send('while let go');
    expect([chat.getState().sending, chat.getState().outbox.map((o) => o.text)]).toEqual([
      null,
      ['while let go'],
    ]);
    await pause(200);
    expect(server.count('start')).toBe(0);

    stops.push(chat.retain());
    await waitFor(() => shown(chat).length === 2, 'prompt and reply', BOUND_MS);
    expect(shown(chat)).toEqual(['user: while let go', 'assistant: second']);
    expect(server.count('start')).toBe(1);
  });

  it('released while its POST is answered 503: the retry sends nothing; held again, sent once', async () => {
    let release = () => {};
    server.handler = (hit, _req, res) => {
      if (hit.route !== 'start' || hit.n !== 1) return false;
      release(); // let go of before the 503 arrives: its retry would be due after 10–50 ms
      return server.error(res, 503, 'store_unavailable');
    };
    const chat = threadChat(await storedChat({ outbox: [QUEUED] }));
    release = chat.retain();
    await waitFor(() => server.count('start') === 1, 'the first POST', BOUND_MS);
    await pause(300);
    expect(server.count('start')).toBe(1);
    expect(chat.getState().outbox.map((o) => o.text)).toEqual(['queued']);

    stops.push(chat.retain());
    await waitFor(() => shown(chat).length === 2, 'prompt and reply', BOUND_MS);
    expect(shown(chat)).toEqual(['user: queued', 'assistant: second']);
    expect(server.count('start')).toBe(2);
    expect(chat.getState().outbox).toEqual([]);
    expect(chat.getState().error).toBeNull();
  });

  it('disposed while its POST is answered 503: the retry sends nothing', async () => {
    let dispose = () => {};
    server.handler = (hit, _req, res) => {
      if (hit.route !== 'start') return false;
      dispose();
      return server.error(res, 503, 'store_unavailable');
    };
    const chat = threadChat(await storedChat({ outbox: [QUEUED] }));
    stops.push(chat.retain());
    dispose = () => chat.dispose();
    await waitFor(() => server.count('start') === 1, 'the first POST', BOUND_MS);
    await pause(300);
    expect(server.count('start')).toBe(1);
  });
});
