// @vitest-environment jsdom
/**
 * The AI SDK's real `useChat` on `ResumableChatTransport`, against the real
 * `@resumable/server` (scripted agent) on 127.0.0.1, with IndexedDB (fake-indexeddb):
 * exact resume after reloads and drops, no duplicated part, stop = server cancel, a second
 * tab joining, StrictMode not mistaken for a stop.
 */
import type { UseChatHelpers } from '@ai-sdk/react';
import { useChat } from '@ai-sdk/react';
import type { RunSnapshot } from '@resumable/protocol';
import { messageText } from '@resumable/protocol';
import { type RunningServer, startServer } from '@resumable/server';
import { act, cleanup, render } from '@testing-library/react';
import type { UIMessage } from 'ai';
import { StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResumableChatTransportOptions } from '../src/ai-sdk/index.js';
import { partsOf, type ResumableChatTransport, segmentsOf } from '../src/ai-sdk/index.js';
import type { ManualSignal, RecordStorage } from '../src/core/index.js';
import { createIndexedDbStorage, createManualSignal } from '../src/core/index.js';
import type { RunResumeRecord } from '../src/core/records/run-record.js';
import { runRecordKey } from '../src/core/records/run-record.js';
import { openTransport } from './ai-sdk-util.js';

/**
 * Polls `check` between short `act` scopes, so the renders `useChat` schedules (plain
 * React state) are committed while waiting; fails with `what` after `timeoutMs`.
 */
async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await act(() => new Promise((r) => setTimeout(r, 5)));
  }
}

let server: RunningServer;
/** Every URL the transports fetched, in order (path and query). */
let fetched: string[] = [];
const recordingFetch: typeof fetch = (input, init) => {
  fetched.push(String(input).slice(server.url.length));
  return fetch(input, init);
};
const afters = (runId: string) =>
  fetched
    .filter((u) => u.startsWith(`/runs/${runId}/events`))
    .map((u) => Number(new URL(u, 'http://x').searchParams.get('after')));

beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
  fetched = [];
});
afterEach(async () => {
  cleanup();
  await server.close();
});

const script = (tokens: number, tokensPerSecond: number) => ({
  forwardedProps: { script: { tokens, tokensPerSecond, seed: 3 } },
});

function transportOn(
  storage: RecordStorage,
  extra: Partial<ResumableChatTransportOptions> & { online?: ManualSignal } = {},
) {
  return openTransport(server.url, { storage, ...extra, env: { fetch: recordingFetch } });
}

type Chat = UseChatHelpers<UIMessage>;

function ChatProbe(props: {
  transport: ResumableChatTransport;
  messages?: UIMessage[];
  onChat: (chat: Chat) => void;
}) {
  const chat = useChat({
    id: 'c1',
    transport: props.transport,
    resume: true,
    ...(props.messages ? { messages: props.messages } : {}),
  });
  props.onChat(chat);
  return null;
}

async function snapshotOf(runId: string, token: string): Promise<RunSnapshot> {
  const response = await fetch(`${server.url}/runs/${runId}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as RunSnapshot;
}

/** The reply's text parts joined: a reply streamed twice over itself shows here doubled. */
const replyText = (m: UIMessage | undefined) =>
  (m?.parts ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');

const reply = (chat: Chat) => chat.messages.find((m) => m.role === 'assistant');

async function storedRecord(storage: RecordStorage) {
  return (await storage.get(runRecordKey('c1'))) as RunResumeRecord & { token: string };
}

/**
 * The reply must be one assistant message whose parts equal the server's snapshot as the
 * transport converts it, with the snapshot's exact text: the AI SDK's duplicate-on-resume
 * bug (a resumed stream replayed onto the message, or pushed as a second one) fails both.
 */
function expectExactReply(messages: readonly UIMessage[], runId: string, snapshot: RunSnapshot) {
  const replies = messages.filter((m) => m.role === 'assistant');
  expect(replies.map((m) => m.id)).toEqual([runId]);
  expect(replies[0]!.parts).toEqual(partsOf(segmentsOf(snapshot.messages)));
  const serverText = snapshot.messages
    .filter((m) => m.role === 'assistant')
    .map((m) => messageText(m))
    .join('');
  expect(serverText.length).toBeGreaterThan(100);
  expect(replyText(replies[0])).toBe(serverText);
  expect(replies[0]!.parts.filter((p) => p.type === 'text')).toHaveLength(1);
}

describe('useChat × ResumableChatTransport × @resumable/server', () => {
  it('reload three times mid-answer, then a drop: each resume asks for the stored offset', async () => {
    const storage = createIndexedDbStorage({ dbName: 'ai-sdk-reload' });
    let transport = transportOn(storage, { runInput: script(900, 150) });
    let chat!: Chat;
    let view = render(<ChatProbe transport={transport} onChat={(c) => (chat = c)} />);
    act(() => {
      void chat.sendMessage({ text: 'a long answer please' });
    });
    await until(() => replyText(reply(chat)).length > 50, 'text', 10_000);

    const resumedAt: number[] = [];
    for (let reload = 0; reload < 3; reload++) {
      // A reload: nothing of the page survives but IndexedDB. (A real reload runs no React
      // cleanup; unmounting here would make useChat call stop(), so the transport closes
      // first, as an app does before unmounting a chat whose run should live on.)
      const before = replyText(reply(chat)).length;
      transport.close();
      view.unmount();
      await transport.closing();
      const record = await storedRecord(storage);
      // Mid-answer: the record this reload resumes from is of a run still going.
      expect(record.status).toBe('running');
      resumedAt.push(record.offset);
      transport = transportOn(storage, { runInput: script(900, 150) });
      const restored = await transport.loadMessages('c1');
      // The stored reply shows before any network: the prompt, then the text so far.
      expect(restored.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(restored[1]!.id).toBe(record.runId);
      view = render(
        <ChatProbe transport={transport} messages={restored} onChat={(c) => (chat = c)} />,
      );
      await until(() => replyText(reply(chat)).length > before + 30, 'more text', 10_000);
    }
    const { runId, token } = await storedRecord(storage);
    // A drop: the server closes the live stream; the session resumes on its own.
    const streamsBefore = afters(runId).length;
    server.manager.dropConnections(runId);
    await until(() => afters(runId).length > streamsBefore, 'reconnect', 10_000);
    await until(() => chat.status === 'ready', 'finished', 15_000);

    const asked = afters(runId);
    expect(asked[0]).toBe(0);
    // Reload n asked for exactly the offset its record held; never the first chunk again.
    expect(asked.slice(1, 4)).toEqual(resumedAt);
    expect(asked.slice(1).every((after) => after > 0)).toBe(true);
    const snapshot = await snapshotOf(runId, token);
    expect(snapshot.status).toBe('finished');
    expectExactReply(chat.messages, runId, snapshot);
    expect(chat.messages[0]).toMatchObject({ role: 'user' });
    transport.close();
  });

  it('offline mid-answer: parked, then resumed from the offset it had', async () => {
    const online = createManualSignal(true);
    const storage = createIndexedDbStorage({ dbName: 'ai-sdk-offline' });
    const transport = transportOn(storage, { online, runInput: script(600, 200) });
    let chat!: Chat;
    render(<ChatProbe transport={transport} onChat={(c) => (chat = c)} />);
    act(() => {
      void chat.sendMessage({ text: 'hello' });
    });
    await until(() => replyText(reply(chat)).length > 40, 'text', 10_000);
    const session = transport.session('c1').run;
    online.set(false);
    const parkedAt = session.getState().connection.offset;
    const runId = session.getState().runId!;
    await new Promise((r) => setTimeout(r, 300));
    expect(session.getState().connection.phase).toBe('offline');
    expect(session.getState().connection.offset).toBe(parkedAt);
    online.set(true);
    await until(() => chat.status === 'ready', 'finished', 15_000);
    expect(afters(runId)).toEqual([0, parkedAt]);
    const { token } = await storedRecord(storage);
    expectExactReply(chat.messages, runId, await snapshotOf(runId, token));
    transport.close();
  });

  it("useChat's stop() cancels the run on the server", async () => {
    const transport = transportOn(createIndexedDbStorage({ dbName: 'ai-sdk-stop' }), {
      runInput: script(2000, 100),
    });
    let chat!: Chat;
    render(<ChatProbe transport={transport} onChat={(c) => (chat = c)} />);
    act(() => {
      void chat.sendMessage({ text: 'go on and on' });
    });
    await until(() => replyText(reply(chat)).length > 10, 'text', 10_000);
    const session = transport.session('c1').run;
    await act(() => chat.stop());
    await until(() => session.getState().status === 'cancelled', 'cancelled', 10_000);
    const runId = session.getState().runId!;
    expect(fetched.filter((u) => u === `/runs/${runId}/cancel`)).toHaveLength(1);
    const { token } = await storedRecord(session.storage);
    expect((await snapshotOf(runId, token)).status).toBe('cancelled');
    expect(chat.status).toBe('ready');
    transport.close();
  });

  it("StrictMode's unmount-remount is not a stop: the run finishes", async () => {
    const transport = transportOn(createIndexedDbStorage({ dbName: 'ai-sdk-strict' }), {
      runInput: script(120, 400),
    });
    let chat!: Chat;
    render(
      <StrictMode>
        <ChatProbe transport={transport} onChat={(c) => (chat = c)} />
      </StrictMode>,
    );
    act(() => {
      void chat.sendMessage({ text: 'hi' });
    });
    const session = transport.session('c1').run;
    await until(() => session.getState().status === 'finished', 'finished', 10_000);
    await until(() => chat.status === 'ready', 'ready', 10_000);
    const { runId, token } = await storedRecord(session.storage);
    expectExactReply(chat.messages, runId, await snapshotOf(runId, token));
    expect(fetched.some((u) => u.endsWith('/cancel'))).toBe(false);
    transport.close();
  });

  it('a second tab on the same chat joins the running reply and ends equal', async () => {
    const storage = createIndexedDbStorage({ dbName: 'ai-sdk-tabs' });
    const first = transportOn(storage, { runInput: script(600, 200) });
    let one!: Chat;
    render(<ChatProbe transport={first} onChat={(c) => (one = c)} />);
    act(() => {
      void one.sendMessage({ text: 'shared' });
    });
    await until(() => replyText(reply(one)).length > 40, 'text', 10_000);
    await first.session('c1').run.flush();
    const second = transportOn(storage);
    let two!: Chat;
    render(<ChatProbe transport={second} onChat={(c) => (two = c)} />);
    await until(() => two.status === 'streaming', 'second tab streaming', 10_000);
    await until(() => one.status === 'ready' && two.status === 'ready', 'both done', 15_000);
    const { runId, token } = await storedRecord(storage);
    const snapshot = await snapshotOf(runId, token);
    expectExactReply(one.messages, runId, snapshot);
    expectExactReply(two.messages, runId, snapshot);
    // The second tab never read the log from its start: it resumed after the stored offset.
    expect(afters(runId).filter((a) => a === 0)).toHaveLength(1);
    first.close();
    second.close();
  });
});
