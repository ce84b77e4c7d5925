// @vitest-environment jsdom

import { createRunState } from '@resumable/protocol';
import { act, cleanup, render } from '@testing-library/react';
import type { ProfilerOnRenderCallback, ReactNode } from 'react';
import { memo, Profiler, StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualSignal } from '../src/core/env.js';
import { createManualSignal } from '../src/core/env.js';
import { runRecordKey } from '../src/core/record.js';
import { recordOf } from '../src/core/record-write.js';
import type { RecordStorage } from '../src/core/storage.js';
import { createIndexedDbStorage, createMemoryStorage } from '../src/core/storage.js';
import type { ChatController, ChatMessage, ConnectionInfo } from '../src/core/types.js';
import { type ResumableRun, useResumableChat, useResumableRun } from '../src/index.js';
import { FakeServer } from './fake-server.js';
import { RunProbe, sessionOf, TestProvider } from './react-harness.js';
import { assistantText, waitFor } from './util.js';

let server: FakeServer;
beforeEach(async () => {
  server = await new FakeServer({ tokens: 20, intervalMs: 3 }).start();
});
afterEach(async () => {
  cleanup();
  await server.close();
});

const RUN = 'run-react-0123456789';
const eventsRequests = (runId: string) =>
  server.requests.filter((r) => r.path === `/runs/${runId}/events`).map((r) => r.after);

function Providers(props: {
  storage: RecordStorage;
  online?: ManualSignal;
  fetch?: typeof fetch;
  children: ReactNode;
}) {
  return <TestProvider endpoint={server.url} backoff={{ initialMs: 5, maxMs: 20 }} {...props} />;
}

/** Renders of `StatusLine`: a memoized status component, as a UI would have one. */
const statusRenders = { count: 0 };
const StatusLine = memo(function StatusLine({ connection }: { connection: ConnectionInfo }) {
  statusRenders.count++;
  return <p data-testid="phase">{connection.phase}</p>;
});

function RunWithStatus(props: { onRun: (run: ResumableRun) => void }) {
  const run = useResumableRun({ key: 'slot' });
  props.onRun(run);
  return (
    <>
      <p data-testid="text">{assistantText(run.messages)}</p>
      <StatusLine connection={run.connection} />
    </>
  );
}

/** The whole response body as one chunk: one read, as a replay from a store batch is. */
const oneChunk: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  return new Response(await response.arrayBuffer(), {
    status: response.status,
    headers: response.headers,
  });
};

/**
 * The body cut into `pieces` chunks at arbitrary bytes (mid-frame), each its own read, all
 * there before the next macrotask: a replay that crossed the wire in several TCP segments.
 */
const splitInto =
  (pieces: number): typeof fetch =>
  async (input, init) => {
    const response = await fetch(input, init);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const size = Math.ceil(bytes.byteLength / pieces) + 7;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.byteLength; at += size) {
          controller.enqueue(bytes.slice(at, at + size));
        }
        controller.close();
      },
    });
    return new Response(bytes.byteLength === 0 ? null : body, {
      status: response.status,
      headers: response.headers,
    });
  };

/** Replays a whole 10,000-event run into a fresh tree through `fetchFn`. */
async function replay10k(fetchFn: typeof fetch) {
  const big = await new FakeServer({ tokens: 9996, intervalMs: 0 }).start();
  try {
    big.createRun(RUN, 'th');
    const storage = createMemoryStorage();
    // A record at offset 0: a reload right after the POST, so the whole log replays.
    await storage.update(runRecordKey('slot'), () =>
      recordOf(
        'slot',
        createRunState({ runId: RUN, threadId: 'th' }),
        { runId: RUN, threadId: 'th', token: 'tok-th' },
        0,
      ),
    );
    const commits: string[] = [];
    let run!: ResumableRun;
    const onRender: ProfilerOnRenderCallback = () => commits.push(assistantText(run.messages));
    const saved = server;
    server = big;
    render(
      <Providers storage={storage} fetch={fetchFn}>
        <Profiler id="run" onRender={onRender}>
          <RunProbe onRun={(r) => (run = r)} />
        </Profiler>
      </Providers>,
    );
    server = saved;
    let updates = 0;
    const off = (await sessionOf(() => run)).store.subscribe((s, p) => {
      if (s.run.offset !== p.run.offset) updates++;
    });
    await act(() => waitFor(() => run.status === 'finished', 'finished', 15_000));
    off();
    expect(assistantText(run.messages)).toBe(FakeServer.fullText(9996));
    expect(run.connection.offset).toBe(10_000);
    expect(run.connection.caughtUp).toBe(10_000);
    expect(updates).toBe(1);
    // Every commit shows either nothing or the whole text: the replay committed once.
    const withText = commits.filter((t) => t !== '');
    expect(new Set(withText).size).toBe(1);
    expect(commits.indexOf(withText[0]!)).toBe(commits.length - withText.length);
    expect(withText.length).toBe(1);
  } finally {
    await big.close();
  }
}

describe('useResumableRun', () => {
  it('reload: the new tree shows the snapshot at once and resumes from the persisted offset', async () => {
    const storage = createIndexedDbStorage({ dbName: 'react-reload' });
    server.createRun(RUN, 'th', { paused: true });
    let run!: ResumableRun;
    const first = render(
      <Providers storage={storage}>
        <RunProbe onRun={(r) => (run = r)} />
      </Providers>,
    );
    await act(async () =>
      (await sessionOf(() => run)).attach({ runId: RUN, threadId: 'th', token: 'tok-th' }),
    );
    server.step(RUN, 12);
    await act(() => waitFor(() => run.connection.offset === 12, 'offset 12'));
    await run.session!.flush();
    first.unmount();
    await run.session!.dispose(); // the page is gone
    server.step(RUN, 4);

    let texts: string[] = [];
    let after!: ResumableRun;
    const second = render(
      <Providers storage={storage}>
        <RunProbe
          onRun={(r) => {
            after = r;
            texts.push(assistantText(r.messages));
          }}
        />
      </Providers>,
    );
    await act(async () => (await sessionOf(() => after)).hydrate());
    // Snapshot before any event of the new connection: tokens 0..9 (offsets 3..12).
    expect(texts).toContain(FakeServer.fullText(10));
    expect(eventsRequests(RUN).slice(-1)).toEqual([12]);
    texts = [];
    server.resume(RUN);
    await act(() => waitFor(() => after.status === 'finished', 'finished'));
    expect(second.getByTestId('text').textContent).toBe(server.text(RUN));
    expect(server.text(RUN)).toBe(FakeServer.fullText(20));
  });

  it('a 10,000-event replay is one store update and one commit', async () => {
    await replay10k(oneChunk);
  });

  it('a 10,000-event replay split across reads is still one store update and one commit', async () => {
    let reads = 0;
    const split = splitInto(9);
    const counting: typeof fetch = async (input, init) => {
      const response = await split(input, init);
      if (!response.body) return response;
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          reads++;
          controller.enqueue(value);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    await replay10k(counting);
    expect(reads).toBe(9);
  });

  it('a memoized status component given `connection` does not re-render per batch', async () => {
    server.createRun(RUN, 'th', { paused: true });
    let run!: ResumableRun;
    statusRenders.count = 0;
    const view = render(
      <Providers storage={createMemoryStorage()}>
        <RunWithStatus onRun={(r) => (run = r)} />
      </Providers>,
    );
    await act(async () =>
      (await sessionOf(() => run)).attach({ runId: RUN, threadId: 'th', token: 'tok-th' }),
    );
    await act(() => waitFor(() => run.connection.phase === 'streaming', 'streaming'));
    server.step(RUN, 2);
    await act(() => waitFor(() => run.session!.getState().run.offset === 2, 'offset 2'));
    const before = statusRenders.count;
    for (let offset = 3; offset <= 6; offset++) {
      server.step(RUN, 1);
      await act(() => waitFor(() => run.session!.getState().run.offset === offset, `${offset}`));
    }
    // The text re-rendered with each batch; the status line did not.
    expect(view.getByTestId('text').textContent).toBe(FakeServer.fullText(4));
    expect(view.getByTestId('phase').textContent).toBe('streaming');
    expect(statusRenders.count).toBe(before);
    expect(run.connection.offset).toBe(6);
  });

  it('StrictMode and two components on one key share one session and one connection', async () => {
    server.createRun(RUN, 'th', { paused: true });
    let a!: ResumableRun;
    let b!: ResumableRun;
    render(
      <StrictMode>
        <Providers storage={createMemoryStorage()}>
          <RunProbe onRun={(r) => (a = r)} />
          <RunProbe onRun={(r) => (b = r)} />
        </Providers>
      </StrictMode>,
    );
    const shared = await sessionOf(() => a);
    expect(b.session).toBe(shared);
    await act(async () =>
      (await sessionOf(() => a)).attach({ runId: RUN, threadId: 'th', token: 'tok-th' }),
    );
    server.resume(RUN);
    await act(() => waitFor(() => a.status === 'finished', 'finished'));
    expect(eventsRequests(RUN)).toEqual([0]);
    expect(assistantText(b.messages)).toBe(FakeServer.fullText(20));
  });
});

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
    await act(() => chat.send('hello'));
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
    await server.close();
    server = await new FakeServer({ tokens: 400, intervalMs: 10 }).start();
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
    expect(chat.isStreaming).toBe(false);
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
