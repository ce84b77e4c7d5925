// @vitest-environment jsdom

import { act, render } from '@testing-library/react';
import { memo } from 'react';
import { describe, expect, it } from 'vitest';
import { createManualSignal } from '../src/core/base/env.js';
import type { ChatController } from '../src/core/client/controller.js';
import type { ChatMessage } from '../src/core/conversation/state.js';
import { createIndexedDbStorage, createMemoryStorage } from '../src/core/records/storage.js';
import { useResumableChat } from '../src/index.js';
import { FakeServer } from './fake-server.js';
import {
  eventsRequests,
  fakeServerPerTest,
  Providers,
  RUN,
  replaceServer,
  server,
} from './react-fake-server.js';
import { assistantText, waitFor } from './util.js';

/**
 * useResumableChat in a real React tree against the fake server: optimistic sends with
 * stable message identity, the persisted offline outbox, joining another device's run, stop.
 */
fakeServerPerTest();

function ChatProbe(props: {
  onChat: (chat: ChatController) => void;
  threadId?: string;
  token?: string;
}) {
  const chat = useResumableChat({
    key: 'chat',
    ...(props.threadId ? { threadId: props.threadId } : {}),
    ...(props.token ? { token: props.token } : {}),
  });
  props.onChat(chat);
  return (
    <ul>
      {chat.messages.map((m) => (
        <Row key={m.id} message={m} />
      ))}
    </ul>
  );
}

const rowRenders = new Map<string, number>();
const Row = memo(function Row({ message }: { message: ChatMessage }) {
  rowRenders.set(message.id, (rowRenders.get(message.id) ?? 0) + 1);
  return <li>{String(message.content ?? '')}</li>;
});

describe('useResumableChat', () => {
  it('sends with an optimistic message, and a settled reply keeps its identity while the next streams', async () => {
    let chat!: ChatController;
    const seen: (ChatMessage | undefined)[] = [];
    render(
      <Providers storage={createMemoryStorage()}>
        <ChatProbe
          onChat={(c) => {
            chat = c;
            seen.push(c.messages[0]);
          }}
        />
      </Providers>,
    );
    // React hears the stores once a frame: the POST is answered 100 ms late, so the first
    // frame with the prompt comes while it is still sending (this server answered within
    // the frame once, and the first frame drawn already had it sent).
    server.postDelayMs = 100;
    await act(() => chat.send('hello'));
    server.postDelayMs = 0;
    // The first render with the prompt shows it at once, marked as sending.
    expect(seen.find((m) => m !== undefined)).toMatchObject({
      role: 'user',
      content: 'hello',
      pending: 'sending',
    });
    await act(() => waitFor(() => chat.status === 'finished', 'first reply'));
    const firstReply = chat.messages.find((m) => m.role === 'assistant')!;
    expect(chat.messages.map((m) => [m.role, m.pending])).toEqual([
      ['user', undefined],
      ['assistant', undefined],
    ]);
    expect(chat.threadId).toMatch(/^thread-/);
    const rendersBefore = rowRenders.get(firstReply.id);
    const identities = new Set<ChatMessage>();
    await act(async () => {
      await chat.send('again');
    });
    await act(() =>
      waitFor(() => {
        identities.add(chat.messages.find((m) => m.id === firstReply.id)!);
        return chat.status === 'finished' && chat.runId !== null && chat.messages.length === 4;
      }, 'second reply'),
    );
    expect(identities.size).toBe(1);
    expect([...identities][0]).toBe(firstReply);
    expect(rowRenders.get(firstReply.id)).toBe(rendersBefore);
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(assistantText(chat.messages)).toBe(FakeServer.fullText(20) + FakeServer.fullText(20));
    // Both POSTs went to the same thread, the second with the thread's token.
    const posts = server.requests.filter((r) => r.method === 'POST' && r.path === '/runs');
    expect(posts.map((p) => p.auth)).toEqual([null, `Bearer tok-${chat.threadId}`]);
  });

  it('queues a prompt sent offline in a persisted outbox that survives a reload and sends on online', async () => {
    const storage = createIndexedDbStorage({ dbName: 'react-outbox' });
    const online = createManualSignal(false);
    let chat!: ChatController;
    const first = render(
      <Providers storage={storage} online={online}>
        <ChatProbe onChat={(c) => (chat = c)} />
      </Providers>,
    );
    await act(() => chat.send('written on the train'));
    // Drawn queued within a few frames of send() (React hears the stores once a frame; 100 ms
    // is six): read at once, it was the frame before whenever send() took less than one (9
    // ms when this case runs first in its file, as it does alone: it failed every time).
    await act(() => waitFor(() => chat.outbox.length > 0, 'drawn queued', 100));
    expect(chat.outbox.map((o) => o.text)).toEqual(['written on the train']);
    expect(chat.messages.map((m) => [m.content, m.pending])).toEqual([
      ['written on the train', 'queued'],
    ]);
    expect(server.requests.length).toBe(0);
    const runId = chat.outbox[0]!.runId;
    first.unmount();
    await new Promise((r) => setTimeout(r, 10));

    const online2 = createManualSignal(false);
    render(
      <Providers storage={storage} online={online2}>
        <ChatProbe onChat={(c) => (chat = c)} />
      </Providers>,
    );
    await act(() => waitFor(() => chat.outbox.length === 1, 'outbox restored'));
    expect(chat.messages.map((m) => m.pending)).toEqual(['queued']);
    await act(async () => online2.set(true));
    await act(() => waitFor(() => chat.status === 'finished', 'sent and answered'));
    expect(chat.outbox).toEqual([]);
    expect(chat.runId).toBe(runId);
    expect(chat.messages.map((m) => [m.role, m.pending])).toEqual([
      ['user', undefined],
      ['assistant', undefined],
    ]);
    expect(server.requests.filter((r) => r.method === 'POST' && r.path === '/runs').length).toBe(1);
  });

  it('on mount with a threadId loads history and joins the run another device started', async () => {
    server.createRun('run-earlier-0123456789', 'th-shared', { tokens: 3 });
    await waitFor(
      () => server.text('run-earlier-0123456789') === FakeServer.fullText(3),
      'earlier run',
    );
    await new Promise((r) => setTimeout(r, 10));
    server.createRun(RUN, 'th-shared', { paused: true });
    server.step(RUN, 7);
    let chat!: ChatController;
    render(
      <Providers storage={createMemoryStorage()}>
        <ChatProbe onChat={(c) => (chat = c)} threadId="th-shared" token="tok-th-shared" />
      </Providers>,
    );
    await act(() => waitFor(() => chat.runId === RUN, 'joined'));
    expect(chat.isStreaming).toBe(true);
    server.resume(RUN);
    await act(() => waitFor(() => chat.status === 'finished', 'finished'));
    expect(assistantText(chat.messages)).toBe(FakeServer.fullText(3) + FakeServer.fullText(20));
    expect(chat.hasOlder).toBe(false);
    // Joined via the snapshot, then events after it: no replay from 0.
    expect(eventsRequests(RUN)).toEqual([7]);
  });

  it('stop cancels on the server and the reply is marked stopped', async () => {
    // A run long enough (400 tokens, 4 s) that the cancel lands before it ends: this file's
    // 60 ms runs finished first once on a loaded machine (status finished, offset 24).
    await replaceServer({ tokens: 400, intervalMs: 10 });
    let chat!: ChatController;
    render(
      <Providers storage={createMemoryStorage()}>
        <ChatProbe onChat={(c) => (chat = c)} />
      </Providers>,
    );
    await act(() => chat.send('long answer please'));
    await act(() => waitFor(() => chat.connection.offset >= 5, 'streaming'));
    expect(chat.isStreaming).toBe(true);
    await act(() => chat.stop());
    // Drawn as stopped within a few frames (React hears the stores once a frame; 100 ms is
    // six): it was read right after stop() and saw the frame before (failed in a CI run).
    await act(() => waitFor(() => !chat.isStreaming, 'drawn as not streaming', 100));
    // Bounded like every wait; a failure says where the chat stood.
    await act(() =>
      waitFor(() => chat.status === 'cancelled', 'cancelled', 10_000).catch((error: Error) => {
        const { phase, lastError, offset } = chat.connection;
        throw new Error(
          `${error.message}: status ${chat.status}, phase ${phase}, offset ${offset}, ` +
            `last error ${lastError?.code ?? 'none'}, requests ${server.requests.map((r) => `${r.method} ${r.path}`).join(', ')}`,
        );
      }),
    );
    const reply = chat.messages.find((m) => m.role === 'assistant')!;
    expect(reply.ended).toBe('stopped');
    expect(assistantText(chat.messages)).toBe(server.text(chat.runId!));
  });
});
