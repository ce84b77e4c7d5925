import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { createManualSignal } from '../src/core/base/env.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { FakeServer } from './fake-server.js';
import { assistantText, fastClient, waitFor } from './util.js';

let server: FakeServer;
let client: ResumableClient;
beforeEach(async () => {
  server = await new FakeServer({ tokens: 4, intervalMs: 1 }).start();
  client = fastClient(server.url);
});
afterEach(async () => {
  await client.dispose();
  await server.close();
});

describe('ChatSession (core, no React)', () => {
  it('pages history backwards with loadOlder', async () => {
    for (let i = 0; i < 3; i++) {
      server.createRun(`run-hist-${i}-0123456789`, 'th-h', {
        tokens: 1,
        input: [{ id: `u${i}`, role: 'user', content: `q${i}` }],
      });
      await waitFor(() => server.text(`run-hist-${i}-0123456789`) === 'tok0 ', `run ${i}`);
    }
    const chat = client.chatSession('th-h', { threadId: 'th-h', token: 'tok-th-h', pageSize: 2 });
    const release = chat.retain();
    await waitFor(() => chat.getState().messages.length === 2, 'first page');
    const ids = () => chat.getState().messages.map((m) => m.id);
    expect(ids()).toEqual(['u2', 'a-run-hist-2-0123456789']);
    expect(chat.getState().hasOlder).toBe(true);
    await chat.loadOlder();
    expect(ids()).toEqual(['u1', 'a-run-hist-1-0123456789', 'u2', 'a-run-hist-2-0123456789']);
    await chat.loadOlder();
    expect(ids()).toEqual([
      'u0',
      'a-run-hist-0-0123456789',
      'u1',
      'a-run-hist-1-0123456789',
      'u2',
      'a-run-hist-2-0123456789',
    ]);
    expect(chat.getState().hasOlder).toBe(false);
    release();
  });

  it('a refused prompt stays in the outbox with its error; retry() sends it with the same runId', async () => {
    const chat = client.chatSession('c');
    const release = chat.retain();
    server.postOverrides.push({
      status: 413,
      body: { error: { code: 'payload_too_large', message: 'too big' } },
    });
    await chat.send('first try');
    const [item] = chat.getState().outbox;
    expect(item).toMatchObject({
      text: 'first try',
      error: { code: 'payload_too_large', message: 'too big' },
    });
    expect(chat.getState().error?.code).toBe('payload_too_large');
    expect(chat.getState().messages.map((m) => [m.content, m.pending])).toEqual([
      ['first try', 'queued'],
    ]);
    chat.retry();
    await waitFor(() => chat.run.getState().status === 'finished', 'answered');
    expect(chat.run.getState().runId).toBe(item!.runId);
    expect(chat.getState().outbox).toEqual([]);
    expect(assistantText(chat.getState().messages)).toBe(FakeServer.fullText(4));
    release();
  });

  it('a network failure keeps the prompt queued; back online it goes out once', async () => {
    const online = client.options.env!.online as ReturnType<typeof createManualSignal>;
    const chat = client.chatSession('n');
    const release = chat.retain();
    server.postOverrides.push({
      status: 503,
      body: { error: { code: 'store_unavailable', message: 'x' } },
    });
    online.set(false);
    await chat.send('one');
    await chat.send('two');
    expect(chat.getState().outbox.map((o) => o.text)).toEqual(['one', 'two']);
    online.set(true);
    // The first POST gets a 503 and is retried on its own after a delay; both go out, in order.
    await waitFor(
      () => chat.getState().outbox.length === 0 && chat.run.getState().status === 'finished',
      'both sent',
      8000,
    );
    const posts = server.requests.filter((r) => r.method === 'POST' && r.path === '/runs');
    expect(posts.length).toBe(3);
    expect(chat.getState().messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(
      chat
        .getState()
        .messages.filter((m) => m.role === 'user')
        .map((m) => m.content),
    ).toEqual(['one', 'two']);
    release();
  });

  it('on reload the first hydrated state already holds the stored prompt and its reply', async () => {
    const storage = createMemoryStorage();
    const tab = (s = storage) =>
      new ResumableClient({ ...client.options, storage: s, onWarning: () => {} });
    const first = tab();
    const a = first.chatSession('h');
    const releaseA = a.retain();
    await a.send('remember me');
    await waitFor(() => a.run.getState().status === 'finished', 'answered');
    const reply = assistantText(a.run.getState().messages);
    releaseA();
    await first.dispose();
    const second = tab();
    const b = second.chatSession('h');
    const seen: { hydrated: boolean; messages: readonly { role: string }[] }[] = [];
    const off = b.store.subscribe((s) => seen.push(s));
    const releaseB = b.retain();
    await waitFor(() => b.getState().hydrated, 'hydrated');
    const firstHydrated = seen.find((s) => s.hydrated)!;
    expect(firstHydrated.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(assistantText(firstHydrated.messages as never)).toBe(reply);
    expect(reply).not.toBe('');
    off();
    releaseB();
    await second.dispose();
  });

  it('reset forgets the thread, the run and the record', async () => {
    const chat = client.chatSession('r');
    const release = chat.retain();
    await chat.send('hi');
    await waitFor(() => chat.run.getState().status === 'finished', 'answered');
    expect(chat.getState().threadId).not.toBeNull();
    chat.reset();
    expect(chat.getState()).toMatchObject({ threadId: null, messages: [], outbox: [] });
    await waitFor(() => chat.run.getState().runId === null, 'run cleared');
    await chat.send('new topic');
    await waitFor(() => chat.run.getState().status === 'finished', 'answered again');
    const posts = server.requests.filter((r) => r.method === 'POST' && r.path === '/runs');
    expect(posts.map((p) => p.auth)).toEqual([null, null]);
    release();
  });

  it('a second tab on the same key follows a run the first tab started', async () => {
    const slow = await new FakeServer({ tokens: 30, intervalMs: 3 }).start();
    const storage = createMemoryStorage();
    const tab = () => fastClient(slow.url, storage);
    const [one, two] = [tab(), tab()];
    try {
      const a = one.chatSession('shared');
      const b = two.chatSession('shared');
      const releaseA = a.retain();
      const releaseB = b.retain();
      await a.send('from tab one');
      await waitFor(() => b.run.getState().runId === a.run.getState().runId, 'tab two follows');
      await waitFor(
        () => a.run.getState().status === 'finished' && b.run.getState().status === 'finished',
        'both finished',
      );
      const view = (chat: typeof a) =>
        chat.getState().messages.map((m) => [m.role, String(m.content)]);
      expect(view(b)).toEqual(view(a));
      expect(view(b)).toEqual([
        ['user', 'from tab one'],
        ['assistant', FakeServer.fullText(30)],
      ]);
      // One POST: the second tab joined, it did not send.
      expect(slow.requests.filter((r) => r.method === 'POST').length).toBe(1);
      releaseA();
      releaseB();
    } finally {
      await one.dispose();
      await two.dispose();
      await slow.close();
    }
  });

  it('a prompt sent while a reply streams waits, then goes out when the reply ends', async () => {
    const chat = client.chatSession('q');
    const release = chat.retain();
    server.pauseNew = true;
    await chat.send('first');
    const firstRun = chat.run.getState().runId!;
    await chat.send('second');
    expect(chat.getState().outbox.map((o) => [o.text, o.error])).toEqual([['second', undefined]]);
    expect(chat.getState().messages.map((m) => [m.content, m.pending])).toEqual([
      ['first', undefined],
      ['second', 'queued'],
    ]);
    server.pauseNew = false;
    server.resume(firstRun);
    await waitFor(
      () => chat.run.getState().runId !== firstRun && chat.run.getState().status === 'finished',
      'second answered',
    );
    expect(chat.getState().messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'first'],
      ['assistant', FakeServer.fullText(4)],
      ['user', 'second'],
      ['assistant', FakeServer.fullText(4)],
    ]);
    release();
  });

  it('send right after stop: the stopped reply is marked stopped, the new one streams', async () => {
    const chat = client.chatSession('s');
    const release = chat.retain();
    server.pauseNew = true;
    await chat.send('first');
    const firstRun = chat.run.getState().runId!;
    server.step(firstRun, 4);
    await waitFor(() => chat.run.getState().connection.offset === 4, 'offset 4');
    server.pauseNew = false;
    await chat.stop();
    await chat.send('second');
    await waitFor(
      () => chat.run.getState().runId !== firstRun && chat.run.getState().status === 'finished',
      'second answered',
    );
    const replies = chat.getState().messages.filter((m) => m.role === 'assistant');
    expect(replies.map((m) => [m.ended, m.streaming])).toEqual([
      ['stopped', undefined],
      [undefined, undefined],
    ]);
    release();
  });
});
