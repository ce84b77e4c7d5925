// @vitest-environment jsdom
/**
 * The hooks against the real `@resumable/server` (scripted agent, memory and SQLite
 * stores) on 127.0.0.1: reloads, drops at chosen offsets, a second device, a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunSnapshot } from '@resumable/protocol';
import { type RunningServer, startServer } from '@resumable/server';
import { act, cleanup, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatController } from '../src/core/client/controller.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createIndexedDbStorage, createMemoryStorage } from '../src/core/records/storage.js';
import { type ResumableRun, useResumableChat } from '../src/index.js';
import { RunProbe, sessionOf, TestProvider } from './react-harness.js';
import { assistantText, waitFor } from './util.js';

let server: RunningServer;
let base = '';
/** Every URL the client fetched, in order. */
let fetched: string[] = [];
/** Follows `base`, so a restarted server on another port is reached through the same endpoint. */
const ENDPOINT = 'http://resumable.test/api';
const routedFetch: typeof fetch = (input, init) => {
  const url = String(input).replace(ENDPOINT, base);
  fetched.push(url.slice(base.length));
  return fetch(url, init);
};
const afters = (runId: string) =>
  fetched
    .filter((u) => u.startsWith(`/runs/${runId}/events`))
    .map((u) => Number(new URL(u, 'http://x').searchParams.get('after')));

async function serverSnapshot(runId: string, token: string): Promise<RunSnapshot> {
  const response = await fetch(`${base}/runs/${runId}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as RunSnapshot;
}

beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
  base = server.url;
  fetched = [];
});
afterEach(async () => {
  cleanup();
  await server.close();
});

function Providers(props: { storage: RecordStorage; children: ReactNode }) {
  return (
    <TestProvider
      endpoint={ENDPOINT}
      fetch={routedFetch}
      storage={props.storage}
      backoff={{ initialMs: 10, maxMs: 100 }}
    >
      {props.children}
    </TestProvider>
  );
}

const script = (tokens: number, tokensPerSecond: number) => ({
  forwardedProps: { script: { tokens, tokensPerSecond, seed: 7 } },
  messages: [{ id: 'u1', role: 'user' as const, content: 'tell me about offsets' }],
});

describe('hooks × @resumable/server', () => {
  it('reload mid-stream: snapshot at once, resume from the persisted offset, exact final text', async () => {
    const storage = createIndexedDbStorage({ dbName: 'integration-reload' });
    let run!: ResumableRun;
    const first = render(
      <Providers storage={storage}>
        <RunProbe onRun={(r) => (run = r)} />
      </Providers>,
    );
    const started = await act(() => run.start(script(240, 150)));
    await act(() => waitFor(() => run.connection.offset >= 30, 'offset 30', 10_000));
    // What a pagehide flush leaves in IndexedDB, then the page is gone.
    await run.session!.flush();
    first.unmount();
    await run.session!.dispose();
    const persisted = (await storage.get('run:slot')) as { offset: number; snapshot: RunSnapshot };
    expect(persisted.offset).toBeGreaterThanOrEqual(30);
    expect(persisted.offset).toBeLessThan(200);

    let second!: ResumableRun;
    const texts: string[] = [];
    const view = render(
      <Providers storage={storage}>
        <RunProbe
          onRun={(r) => {
            second = r;
            texts.push(assistantText(r.messages));
          }}
        />
      </Providers>,
    );
    await act(async () => (await sessionOf(() => second)).hydrate());
    expect(texts).toContain(assistantText(persisted.snapshot.messages));
    await act(() => waitFor(() => second.status === 'finished', 'finished', 15_000));
    // The first request of the new page asked for exactly the persisted resume point.
    expect(afters(started.runId)).toEqual([0, persisted.offset]);
    const snapshot = await serverSnapshot(started.runId, started.token!);
    expect(view.getByTestId('text').textContent).toBe(assistantText(snapshot.messages));
    expect(second.connection.offset).toBe(snapshot.lastOffset);
    expect(second.connection.resumes).toBe(1);
  });

  it('server-side drops at chosen offsets: resumes after each, no token lost or doubled', async () => {
    let run!: ResumableRun;
    render(
      <Providers storage={createMemoryStorage()}>
        <RunProbe onRun={(r) => (run = r)} />
      </Providers>,
    );
    const started = await act(() => run.start(script(300, 200)));
    const cuts: number[] = [];
    for (const at of [25, 80, 150]) {
      await act(() => waitFor(() => run.connection.offset >= at, `offset ${at}`, 10_000));
      await act(() => waitFor(() => run.connection.phase === 'streaming', 'streaming', 10_000));
      cuts.push(run.connection.offset);
      server.manager.dropConnections(started.runId);
      await act(() =>
        waitFor(() => afters(started.runId).length === cuts.length + 1, 'reconnect', 10_000),
      );
    }
    await act(() => waitFor(() => run.status === 'finished', 'finished', 15_000));
    const resumedFrom = afters(started.runId).slice(1);
    // Each reconnect asked for at least the offset seen at the cut (events may arrive
    // between our read and the server closing the stream), never less.
    expect(resumedFrom.length).toBe(3);
    for (const [i, after] of resumedFrom.entries()) expect(after).toBeGreaterThanOrEqual(cuts[i]!);
    const snapshot = await serverSnapshot(started.runId, started.token!);
    expect(assistantText(run.messages)).toBe(assistantText(snapshot.messages));
    expect(run.connection.resumes).toBe(3);
  });

  it('chat: send, then a second device joins the running reply through GET /threads/:id', async () => {
    const laptopStorage = createMemoryStorage();
    let chat!: ChatController;
    render(
      <Providers storage={laptopStorage}>
        {/* 2 s: the phone must join while the reply runs, also on a loaded machine. */}
        <ChatProbe onChat={(c) => (chat = c)} runInput={script(300, 150)} />
      </Providers>,
    );
    await act(() => chat.send('hello from the laptop'));
    await act(() => waitFor(() => chat.connection.offset >= 20, 'streaming', 10_000));
    // The phone: a fresh page (own storage) that knows the thread and its token (shared
    // by the app however it shares capabilities; here read from the laptop's record).
    const { token } = (await laptopStorage.get('chat:chat')) as { token: string };
    let phone!: ChatController;
    render(
      <Providers storage={createMemoryStorage()}>
        <ChatProbe onChat={(c) => (phone = c)} threadId={chat.threadId!} token={token} />
      </Providers>,
    );
    await act(() => waitFor(() => phone.runId === chat.runId, 'phone joined', 10_000));
    expect(phone.isStreaming).toBe(true);
    await act(() =>
      waitFor(
        () => chat.status === 'finished' && phone.status === 'finished',
        'both finished',
        15_000,
      ),
    );
    expect(assistantText(phone.messages)).toBe(assistantText(chat.messages));
    const snapshot = await serverSnapshot(chat.runId!, token);
    expect(assistantText(chat.messages)).toBe(assistantText(snapshot.messages));
  });

  it('server restart on SQLite mid-run: the client resumes on the new process and ends with its typed end', async () => {
    await server.close();
    const dir = mkdtempSync(join(tmpdir(), 'hooks-sqlite-'));
    try {
      server = await startServer({
        port: 0,
        store: `sqlite:${join(dir, 'runs.db')}`,
        heartbeatMs: 1000,
      });
      base = server.url;
      let run!: ResumableRun;
      render(
        <Providers storage={createMemoryStorage()}>
          <RunProbe onRun={(r) => (run = r)} />
        </Providers>,
      );
      const started = await act(() => run.start(script(400, 200)));
      await act(() => waitFor(() => run.connection.offset >= 20, 'offset 20', 10_000));
      await server.close();
      server = await startServer({
        port: 0,
        store: `sqlite:${join(dir, 'runs.db')}`,
        heartbeatMs: 1000,
      });
      base = server.url;
      await act(() =>
        waitFor(() => run.connection.phase === 'error' || run.status === 'error', 'ended', 15_000),
      );
      const snapshot = await serverSnapshot(started.runId, started.token!);
      expect(run.status).toBe(snapshot.status);
      expect(run.error?.code).toBe('agent_lost');
      expect(assistantText(run.messages)).toBe(assistantText(snapshot.messages));
      expect(run.connection.offset).toBe(snapshot.lastOffset);
    } finally {
      await server.close();
      server = await startServer({ port: 0, store: 'memory' });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function ChatProbe(props: {
  onChat: (chat: ChatController) => void;
  threadId?: string;
  token?: string;
  runInput?: Record<string, unknown>;
}) {
  const chat = useResumableChat({
    key: props.threadId ?? 'chat',
    ...(props.threadId ? { threadId: props.threadId } : {}),
    ...(props.token ? { token: props.token } : {}),
    ...(props.runInput ? { runInput: props.runInput } : {}),
  });
  props.onChat(chat);
  return null;
}
