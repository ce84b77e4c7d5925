/**
 * Two devices on one conversation on the real server (scripted agent, answers at once):
 * what one device does must show on the other however the other hears of it. Each race of
 * #25 is forced here in the order that broke it — a device's thread stream held while the
 * other answers, then delivered in one read (`run_started` and `run_ended` of a run that
 * already ended, together), or a device's own POST held until the other's run is followed.
 * The devices share nothing but the server (their own storage, no tab channel or locks).
 */
import type { RunMessage } from '@resumable/protocol';
import { type Agent, type RunningServer, scriptedAgent, startServer } from '@resumable/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualSignal } from '../src/core/base/env.js';
import type { ChatSession } from '../src/core/chat/chat-session.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import type { ChatInterrupt } from '../src/core/interrupts/chat-interrupts.js';
import { InterruptSession } from '../src/core/interrupts/interrupt-session.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { StreamGate } from './stream-gate.js';
import { waitFor } from './util.js';

let server: RunningServer;
const clients: ResumableClient[] = [];
/** While set, a continuation (a run answering interrupts) waits for it after its first event. */
let continuationGate: Promise<void> | null = null;

/** The scripted agent, whose continuations `continuationGate` can hold mid-run. */
function heldContinuations(agent: Agent): Agent {
  const held: Agent = async function* (input, context) {
    let first = true;
    for await (const event of agent(input, context)) {
      if (!first && input.resume && continuationGate) await continuationGate;
      first = false;
      yield event;
    }
  };
  if (agent.validate) held.validate = agent.validate;
  return held;
}

beforeEach(async () => {
  continuationGate = null;
  server = await startServer({
    port: 0,
    store: 'memory',
    heartbeatMs: 1000,
    agent: heldContinuations(scriptedAgent()),
  });
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.dispose();
  await server.close();
});

/** The scripted agent asks for an approval, its words at once. */
const ASK = { forwardedProps: { script: { interrupt: 'tool_approval', tokensPerSecond: 0 } } };

interface Device {
  chat: ChatSession;
  hitl: InterruptSession;
  client: ResumableClient;
  storage: RecordStorage;
  /** Holds this device's thread stream (`hold`), delivers it in one read (`release`). */
  thread: StreamGate;
  /** While set, this device's `POST /runs` waits for it. */
  postGate: Promise<void> | null;
  /** Every `GET /runs/{id}/events` of this device: run id and `after`. */
  events: { runId: string; after: number }[];
  /** Thread streams this device opened. */
  threadStreams: number;
  /** Every `pending` its interrupts showed, by interrupt id, in order. */
  pendings: Map<string, (string | null)[]>;
}

/** A device on the conversation (a new thread without `ids`), held like a mounted page. */
function device(storage: RecordStorage, ids?: { threadId: string; token: string }): Device {
  const thread = new StreamGate((url) => /\/threads\/[^/]+\/events/.test(url));
  const self = {
    storage,
    thread,
    postGate: null,
    events: [],
    threadStreams: 0,
    pendings: new Map(),
  } as Omit<Device, 'chat' | 'hitl' | 'client'> as Device;
  const fetching: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const events = /\/runs\/([^/]+)\/events\?after=(\d+)/.exec(url);
    if (events) self.events.push({ runId: events[1]!, after: Number(events[2]) });
    if (/\/threads\/[^/]+\/events/.test(url)) self.threadStreams++;
    if (init?.method === 'POST' && url.endsWith('/runs') && self.postGate) await self.postGate;
    return thread.fetch(input, init);
  };
  const client = new ResumableClient({
    endpoint: server.url,
    storage,
    backoff: { initialMs: 10, maxMs: 50, minMs: 10 },
    onWarning: () => {},
    env: {
      fetch: fetching,
      online: createManualSignal(true),
      visible: createManualSignal(true),
      onPageHide: () => () => {},
      channel: () => null,
      locks: null,
    },
  });
  clients.push(client);
  self.client = client;
  self.chat = client.chatSession('chat', { ...ids, runInput: ASK });
  self.hitl = new InterruptSession(self.chat);
  self.hitl.store.subscribe(({ interrupts }) => {
    for (const i of interrupts) {
      const seen = self.pendings.get(i.id) ?? [];
      if (seen.at(-1) !== i.pending || seen.length === 0) seen.push(i.pending);
      self.pendings.set(i.id, seen);
    }
  });
  self.hitl.retain();
  return self;
}

/** The device again after a reload: its storage, a new client; the old one gone. */
async function reload(d: Device): Promise<Device> {
  await d.chat.run.flush();
  clients.splice(clients.indexOf(d.client), 1);
  await d.client.dispose();
  return device(d.storage);
}

const interrupt = (d: Device, id: string): ChatInterrupt | undefined =>
  d.hitl.getState().interrupts.find((i) => i.id === id);

/** The newest open interrupt's id, once the device shows one other than `not`. */
async function openQuestion(d: Device, what: string, not: string[] = []): Promise<string> {
  const fresh = () =>
    d.hitl.getState().interrupts.find((i) => i.status === 'open' && !not.includes(i.id));
  await waitFor(() => fresh() !== undefined, what, 5000);
  return fresh()!.id;
}

/** The thread as the server stores it: every message, in order (its newest page). */
async function serverTranscript(d: Device): Promise<string[]> {
  const { threadId, token } = d.chat.getState();
  const response = await fetch(`${server.url}/threads/${threadId}/messages?limit=50`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const { messages } = (await response.json()) as { messages: RunMessage[] };
  return messages.map((m) => `${m.role} ${m.id}`);
}

const transcript = (d: Device) => d.chat.getState().messages.map((m) => `${m.role} ${m.id}`);

/** Waits (1 s at most) until the device shows the server's transcript, then asserts it. */
async function expectServerTranscript(d: Device, what: string): Promise<void> {
  const wanted = await serverTranscript(d);
  await waitFor(() => transcript(d).join() === wanted.join(), what, 1000).catch(() => {});
  expect(transcript(d), what).toEqual(wanted);
}

/** C asks for an approval on a new thread; D opens the other device's link. */
async function twoDevices(): Promise<{ c: Device; d: Device; first: string }> {
  const c = device(createMemoryStorage());
  await c.chat.send('delete the old draft');
  const first = await openQuestion(c, 'C asked');
  const { threadId, token } = c.chat.getState();
  const d = device(createMemoryStorage(), { threadId: threadId!, token: token! });
  await openQuestion(d, 'D shows the question');
  // Both follow the thread: their streams are open before anything is held.
  await waitFor(() => c.chat.run.getState().status === 'finished', 'C: the ask ended', 5000);
  await waitFor(() => c.threadStreams + d.threadStreams === 2, 'both follow the thread', 5000);
  await new Promise((r) => setTimeout(r, 100));
  return { c, d, first };
}

/** The continuation D's approval starts, once it ended on the server. */
async function approveOn(d: Device, id: string): Promise<void> {
  await d.hitl.resolve(id, { approved: true });
  await waitFor(
    () => d.chat.getState().outbox.length === 0 && d.chat.run.getState().status === 'finished',
    'the continuation ended',
    5000,
  );
}

describe('two devices, one conversation: runs that end before the other device hears of them', () => {
  it('approved on D while C heard nothing: C shows it answered within 1 s, the continuation under its prompt, also after a reload', async () => {
    const { c, d, first } = await twoDevices();
    c.thread.hold();
    await approveOn(d, first);
    // C hears run_started and run_ended of the continuation in one read.
    c.thread.release();
    await waitFor(() => interrupt(c, first)?.status === 'resolved', 'C answered', 1000).catch(
      () => {},
    );
    expect(interrupt(c, first)).toMatchObject({
      status: 'resolved',
      pending: null,
      answeredHere: false,
    });
    await expectServerTranscript(c, 'C');
    await expectServerTranscript(d, 'D');
    const again = await reload(c);
    await waitFor(() => again.chat.getState().hydrated, 'C reloaded');
    await expectServerTranscript(again, 'C after a reload');
  });

  it('a question asked on C while D heard nothing: D shows it within 1 s, and the transcript in order', async () => {
    const { c, d, first } = await twoDevices();
    await approveOn(d, first);
    d.thread.hold();
    await c.chat.send('delete it again');
    const second = await openQuestion(c, 'C asked again', [first]);
    await waitFor(() => c.chat.run.getState().status === 'finished', 'C: the ask ended', 5000);
    d.thread.release();
    await waitFor(() => interrupt(d, second)?.status === 'open', 'D shows it', 1000).catch(
      () => {},
    );
    expect(interrupt(d, second)).toMatchObject({ status: 'open', pending: null });
    await expectServerTranscript(d, 'D');
    const again = await reload(d);
    await waitFor(() => again.chat.getState().hydrated, 'D reloaded');
    await expectServerTranscript(again, 'D after a reload');
  });
});

describe('two devices approve at once', () => {
  it("the loser's POST answered 409 after it already follows the winner's run: answered, no error", async () => {
    const { c, d, first } = await twoDevices();
    let letPostGo = () => {};
    c.postGate = new Promise((r) => {
      letPostGo = r;
    });
    let letRunGo = () => {};
    continuationGate = new Promise((r) => {
      letRunGo = r;
    });
    const clicked = c.hitl.resolve(first, { approved: true });
    await waitFor(() => c.chat.getState().sending !== null, 'C sends');
    await d.hitl.resolve(first, { approved: true });
    await waitFor(() => d.chat.getState().outbox.length === 0, "D's continuation started", 5000);
    const winner = d.chat.run.getState().runId;
    // C follows D's continuation from the thread stream while its own POST is on the way.
    await waitFor(() => c.chat.run.getState().runId === winner, 'C follows the winner', 5000);
    letPostGo();
    await clicked;
    letRunGo();
    await waitFor(() => c.chat.getState().outbox.length === 0, "C's answer dropped", 5000);
    await waitFor(() => interrupt(c, first)?.status === 'resolved', 'C answered', 5000);
    expect(c.chat.getState().error).toBeNull();
    expect(c.chat.run.getState().error).toBeNull();
    expect(interrupt(c, first)).toMatchObject({
      status: 'resolved',
      pending: null,
      answeredHere: false,
      answeredBy: winner,
    });
  });

  it('answering the only open question never shows it as a draft', async () => {
    const { c, first } = await twoDevices();
    await approveOn(c, first);
    expect(c.pendings.get(first)).toEqual([null, 'queued', null]);
  });
});
