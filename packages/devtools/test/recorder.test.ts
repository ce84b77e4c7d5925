/**
 * The recorder on real runs: a real `@resumable/server` on 127.0.0.1, the hooks' real
 * `ResumableClient`, and what the devtools fold from the events the client tells
 * (`observeClient`) — the run, each request with its `after=`, every event with its offset,
 * the resume point across a "reload" (a second client on the same records), the storage and
 * its last write, the outbox; and the bounds.
 */

import { createMemoryStorage } from '@resumable/hooks';
import { createManualSignal, type RecordStorage, ResumableClient } from '@resumable/hooks/core';
import { type RunningServer, startServer } from '@resumable/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../src/model/limits.js';
import { sessionJson } from '../src/model/session-json.js';
import type { ConversationView } from '../src/model/views.js';
import { DevtoolsRecorder } from '../src/recorder.js';

let server: RunningServer;
let recorder: DevtoolsRecorder;
const clients: ResumableClient[] = [];

beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
  recorder = new DevtoolsRecorder();
  recorder.start();
});
afterEach(async () => {
  recorder.end();
  for (const client of clients.splice(0)) await client.dispose();
  await server.close();
});

/** A page's client on the server (each one a page load), fast retries, warnings dropped. */
function page(storage: RecordStorage): ResumableClient {
  const client = new ResumableClient({
    endpoint: server.url,
    storage,
    backoff: { initialMs: 10, maxMs: 50, minMs: 10 },
    onWarning: () => {},
    env: {
      online: createManualSignal(true),
      visible: createManualSignal(true),
      onPageHide: () => () => {},
    },
  });
  clients.push(client);
  return client;
}

const script = (tokens: number, tokensPerSecond: number) => ({
  runInput: { forwardedProps: { script: { tokens, tokensPerSecond, seed: 1 } } },
  followThread: false,
  shareTabs: false,
});

/** Waits (bounded) until `check` holds of conversation `key`. */
async function until(
  key: string,
  check: (c: ConversationView) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<ConversationView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = recorder.getState().conversations.find((x) => x.key === key);
    if (c && check(c)) return c;
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what}: ${JSON.stringify(c?.timeline.map((r) => r.text))}`,
      );
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function lastOffsetOf(runId: string, token: string | null): Promise<number> {
  const response = await fetch(`${server.url}/runs/${runId}`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  return ((await response.json()) as { lastOffset: number }).lastOffset;
}

describe('a run as the devtools fold it', () => {
  it('the run, the POST and the event stream with after=0, every event by offset, the write, the outbox', async () => {
    const chat = page(createMemoryStorage()).chatSession('c', script(20, 0));
    chat.retain();
    const runId = (await chat.send('hello'))!;
    const c = await until('c', (x) => x.phase?.connection === 'finished', 'the run ends');
    const last = await lastOffsetOf(runId, chat.run.token);
    expect(c.endpoint).toBe(server.url);
    expect(c.runs.map((r) => `${r.runId} ${r.how} ${r.fromOffset}`)).toEqual([
      `${runId} started 0`,
    ]);
    const runRequests = c.requests.filter((r) => r.path.startsWith('/runs'));
    expect(runRequests.map((r) => `${r.method} ${r.path} ${r.after} ${r.status}`)).toEqual([
      'POST /runs null 201',
      `GET /runs/${runId}/events?after=0 0 200`,
    ]);
    expect(c.lastAfter).toBe(0);
    expect(c.events.map((e) => e.offset)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    expect(c.eventCount).toBe(last);
    expect(c.events[0]!.type).toBe('RUN_STARTED');
    expect(c.events.at(-1)!.type).toBe('RUN_FINISHED');
    expect(c.resumePoint).toBe(last);
    expect(c.storage).toEqual({ kind: 'memory', reason: null, at: c.storage!.at });
    await until('c', (x) => x.lastWrite?.offset === last, 'the end is written');
    expect(recorder.getState().conversations.find((x) => x.key === 'c')!.lastWrite).toMatchObject({
      runId,
      offset: last,
      kind: 'memory',
      error: null,
    });
    expect(c.outbox).toMatchObject({ items: [], sending: null, lastMove: 'sent' });
    expect(c.retries).toEqual([]);
    // The conversation machine: it sent the prompt, followed its run, and is idle once it ended.
    expect(c.conversation).toEqual({
      phase: 'idle',
      input: 'ended',
      run: runId,
      at: c.conversation!.at,
    });
    const steps = c.timeline.map((r) => r.text).filter((t) => t.startsWith('conversation'));
    expect(steps).toEqual([
      'conversation · idle → sending (send) → settle, post',
      `conversation · sending → live (accepted) · run ${runId.slice(0, 8)}… → own`,
      `conversation · live → idle (ended) · run ${runId.slice(0, 8)}… → drain`,
    ]);
  });

  it('a reload mid-answer: the run restored at the stored offset, the next request asks after it, the rest arrives from there', async () => {
    const storage = createMemoryStorage();
    const first = page(storage);
    const chat = first.chatSession('c', script(400, 200));
    chat.retain();
    const runId = (await chat.send('a long one'))!;
    const before = await until('c', (x) => x.resumePoint >= 60, 'sixty events');
    expect(before.runs[0]!.how).toBe('started');
    // What a reload keeps: the record as last written. The old page goes.
    await chat.run.flush();
    const stored = chat.run.getState().run.offset;
    await first.dispose();
    clients.splice(clients.indexOf(first), 1);

    const again = page(storage).chatSession('c', script(400, 200));
    again.retain();
    const c = await until('c', (x) => x.phase?.connection === 'finished', 'the run ends', 20_000);
    const last = await lastOffsetOf(runId, again.run.token);
    expect(c.runs.map((r) => `${r.runId} ${r.how} ${r.fromOffset}`)).toEqual([
      `${runId} restored ${stored}`,
    ]);
    const afters = c.requests.filter((r) => r.after !== null).map((r) => r.after);
    expect(afters).toEqual([0, stored]);
    expect(c.lastAfter).toBe(stored);
    // The events of both page loads, one list: up to the record, then after it.
    const offsets = c.events.map((e) => e.offset);
    expect(offsets.slice(-(last - stored))).toEqual(
      Array.from({ length: last - stored }, (_, i) => stored + 1 + i),
    );
    const resumed = c.events.find((e) => e.offset === stored + 1)!;
    expect(resumed.batch).toBe('catch-up');
    expect(resumed.sinceRequest).toBeGreaterThanOrEqual(0);
    expect(c.resumePoint).toBe(last);
    expect(c.timeline.map((r) => r.text)).toContain(
      `run ${runId.slice(0, 8)}… restored from its record at offset ${stored} (running)`,
    );
  });

  it(`a long run keeps its last ${LIMITS.events} events and counts them all; Copy as JSON holds the view`, async () => {
    const chat = page(createMemoryStorage()).chatSession('long', script(700, 0));
    chat.retain();
    const runId = (await chat.send('a very long one'))!;
    const c = await until('long', (x) => x.phase?.connection === 'finished', 'the run ends');
    const last = await lastOffsetOf(runId, chat.run.token);
    expect(last).toBeGreaterThan(LIMITS.events);
    expect(c.eventCount).toBe(last);
    expect(c.events.length).toBe(LIMITS.events);
    expect(c.events[0]!.offset).toBe(last - LIMITS.events + 1);
    expect(c.timeline.length).toBeLessThanOrEqual(LIMITS.timeline);
    const report = JSON.parse(
      sessionJson(c, { url: 'http://app.test/', userAgent: 'test' }, Date.UTC(2026, 11, 6)),
    );
    expect(report.format).toBe('resumable-devtools/1');
    expect(report.copiedAt).toBe('2026-12-06T00:00:00.000Z');
    expect(report.conversation).toEqual(JSON.parse(JSON.stringify(c)));
    // No token crosses: the client never tells one.
    expect(JSON.stringify(report)).not.toContain(chat.run.token!);
  });
});
