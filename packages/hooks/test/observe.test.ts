/**
 * The observation API (`observeClient`): what the client does and why, told by the code
 * that decides it, against the scriptable `HostileServer` on 127.0.0.1 (so each answer, each
 * cut and each `Retry-After` is exact). Nothing is told, and nothing built, while nobody
 * listens; a listener that throws changes nothing.
 */
import { ResumableError } from '@resumable/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ObservedEvent } from '../src/core/client/client-events.js';
import { observeClient } from '../src/core/client/client-events.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage, withFallback } from '../src/core/records/storage.js';
import { DELTAS, HostileServer, RUN, runEvents, TEXT, THREAD } from './hostile-server.js';
import { trackRejections } from './track-rejections.js';
import { assistantText, type Harness, openSession, waitFor } from './util.js';

let server: HostileServer;
const opened: Harness[] = [];
const stops: (() => void)[] = [];

trackRejections();
beforeEach(async () => {
  server = await new HostileServer().start();
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  for (const h of opened.splice(0)) await h.session.dispose();
  await server.close();
});

/** Every event told from now on (until the test ends). */
function listen(): ObservedEvent[] {
  const seen: ObservedEvent[] = [];
  stops.push(observeClient((event) => seen.push(event)));
  return seen;
}

function open(options: Parameters<typeof openSession>[1] = {}): Harness {
  const h = openSession(server.url, {
    backoff: { initialMs: 20, maxMs: 200, minMs: 20 },
    heartbeatMs: 1000,
    ...options,
  });
  opened.push(h);
  return h;
}

const of = <T extends ObservedEvent['type']>(seen: ObservedEvent[], type: T) =>
  seen.filter((e): e is Extract<ObservedEvent, { type: T }> => e.type === type);

async function finished(h: Harness): Promise<void> {
  await waitFor(() => h.session.getState().status === 'finished', 'the run finishes');
  await h.session.flush();
  expect(assistantText(h.session.getState().messages)).toBe(TEXT);
}

describe('a run, told in order by the code that decides each fact', () => {
  it('storage, the POST, the run, each phase move, the request with after=0, the batch, the writes', async () => {
    const seen = listen();
    const h = open();
    await h.session.start({ runId: RUN, threadId: THREAD });
    await finished(h);
    const events = `${server.url}/runs/${RUN}/events?after=0`;
    expect(
      seen.map((e) => {
        switch (e.type) {
          case 'storage':
            return `storage ${e.storage} ${e.reason}`;
          case 'request':
            return `request ${e.id} ${e.method} ${e.url} after=${e.after}`;
          case 'response':
            return `response ${e.id} ${e.status} ${e.error}`;
          case 'run':
            return `run ${e.runId} ${e.how} offset=${e.offset}`;
          case 'phase':
            return `phase ${e.from}→${e.to} (${e.event}) ${e.connection} offset=${e.offset}`;
          case 'events':
            return `events ${e.envelopes.map((x) => x.offset).join(',')} first=${e.first} offset=${e.offset}`;
          case 'stream-end':
            return `stream-end ${e.id} ${e.outcome} events=${e.events}`;
          case 'write':
            return `write ${e.record} ${e.runId} offset=${e.offset} ${e.storage} ${e.error}`;
          default:
            return e.type;
        }
      }),
    ).toEqual([
      'storage memory null',
      `request 1 POST ${server.url}/runs after=null`,
      'response 1 201 null',
      `run ${RUN} started offset=0`,
      'phase idle→connecting (follow) connecting offset=0',
      `write run:k ${RUN} offset=0 memory null`,
      `request 2 GET ${events} after=0`,
      'response 2 200 null',
      'phase connecting→streaming (open) streaming offset=0',
      'events 1,2,3,4,5,6,7,8,9,10 first=true offset=10',
      'phase streaming→ended (terminal) finished offset=10',
      // The client closes the stream once the run's end is folded.
      'stream-end 2 aborted events=10',
      `write run:k ${RUN} offset=10 memory null`,
    ]);
    // One conversation, one order.
    expect(new Set(seen.map((e) => `${e.endpoint} ${e.key}`))).toEqual(
      new Set([`${server.url} k`]),
    );
    const seqs = seen.map((e) => e.seq);
    expect(seqs).toEqual(seqs.toSorted((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    const batch = of(seen, 'events')[0]!;
    expect(batch.envelopes.map((x) => x.event.type)).toEqual(runEvents(DELTAS).map((x) => x.type));
  });

  it('a cut stream, then a 503 with Retry-After: the retries with their delays, the resumes after=4', async () => {
    const seen = listen();
    server.handler = (hit, _req, res) => {
      if (hit.route !== 'events') return false;
      if (hit.n === 1) {
        // Four events, then the connection is cut.
        const held = server.hold(res);
        held.write(
          server.events
            .slice(0, 4)
            .map((event, i) => `id: ${i + 1}\ndata: ${JSON.stringify(event)}\n\n`)
            .join(''),
        );
        setTimeout(() => held.destroy(), 50);
        return true;
      }
      if (hit.n === 2) return server.error(res, 503, 'store_unavailable', { 'Retry-After': '0.1' });
      return false;
    };
    const h = open();
    await h.session.start({ runId: RUN, threadId: THREAD });
    await finished(h);
    expect(of(seen, 'request').map((r) => `${r.method} after=${r.after}`)).toEqual([
      'POST after=null',
      'GET after=0',
      'GET after=4',
      'GET after=4',
    ]);
    expect(of(seen, 'response').map((r) => `${r.status} ${r.error?.code ?? ''}`)).toEqual([
      '201 ',
      '200 ',
      '503 store_unavailable',
      '200 ',
    ]);
    const retries = of(seen, 'retry');
    expect(
      retries.map((r) => `${r.path} ${r.attempt} ${r.error.code} ${r.retryAfter} ${r.gaveUp}`),
    ).toEqual(['stream 1 network null null', 'stream 2 store_unavailable 0.1 null']);
    // The first: the policy's first ceiling (initialMs = minMs = 20); the second: Retry-After.
    expect(retries.map((r) => r.delay)).toEqual([20, 100]);
    expect(of(seen, 'events').map((e) => `${e.envelopes[0]?.offset}-${e.offset}`)).toEqual([
      '1-4',
      '5-10',
    ]);
    expect(
      of(seen, 'stream-end').map((e) => `${e.outcome} ${e.error?.code ?? ''} events=${e.events}`),
    ).toEqual(['network network events=4', 'http store_unavailable events=0', 'aborted  events=6']);
    const drops = of(seen, 'phase').filter((p) => p.event === 'drop');
    expect(drops.map((p) => `${p.error?.code} attempt=${p.attempt} offset=${p.offset}`)).toEqual([
      'network attempt=1 offset=4',
      'store_unavailable attempt=2 offset=4',
    ]);
  });
});

describe('storage, the outbox', () => {
  it('an IndexedDB that fails: told as indexeddb, then memory with the reason; the writes go to memory', async () => {
    const seen = listen();
    const broken: RecordStorage = {
      kind: 'indexeddb',
      get: () => Promise.reject(new Error('blocked')),
      update: () => Promise.reject(new Error('blocked')),
      delete: () => Promise.reject(new Error('blocked')),
    };
    const h = open({ storage: withFallback(broken, createMemoryStorage()) });
    await h.session.start({ runId: RUN, threadId: THREAD });
    await finished(h);
    expect(of(seen, 'storage').map((e) => `${e.storage} ${e.reason?.message ?? null}`)).toEqual([
      'indexeddb null',
      'memory indexeddb storage failed (blocked); records are kept in memory',
    ]);
    expect(of(seen, 'write').map((e) => `${e.offset} ${e.storage} ${e.error}`)).toEqual([
      '0 memory null',
      '10 memory null',
    ]);
  });

  it('a prompt sent offline: queued, then sending and sent when back online; the conversation sends, then follows its run', async () => {
    const seen = listen();
    const online = { value: false, listeners: new Set<(v: boolean) => void>() };
    const client = new ResumableClient({
      endpoint: server.url,
      storage: createMemoryStorage(),
      backoff: { initialMs: 20, maxMs: 200, minMs: 20 },
      onWarning: () => {},
      env: {
        online: {
          get: () => online.value,
          subscribe(listener) {
            online.listeners.add(listener);
            return () => online.listeners.delete(listener);
          },
        },
        onPageHide: () => () => {},
      },
    });
    stops.push(() => void client.dispose());
    const chat = client.chatSession('c', {
      threadId: THREAD,
      followThread: false,
      shareTabs: false,
    });
    stops.push(chat.retain());
    await waitFor(() => chat.getState().hydrated, 'the chat hydrates');
    const runId = await chat.send('hello');
    expect(
      of(seen, 'outbox').map(
        (e) => `${e.move} ${e.runId} [${e.outbox.map((o) => o.text)}] ${e.sending}`,
      ),
    ).toEqual([`queued ${runId} [hello] null`]);
    online.value = true;
    for (const listener of online.listeners) listener(true);
    await waitFor(() => chat.getState().outbox.length === 0, 'the prompt goes out');
    expect(
      of(seen, 'outbox').map(
        (e) => `${e.move} ${e.runId} [${e.outbox.map((o) => o.text)}] ${e.sending}`,
      ),
    ).toEqual([
      `queued ${runId} [hello] null`,
      `sending ${runId} [hello] ${runId}`,
      `sent ${runId} [] null`,
    ]);
    // The conversation machine's steps that moved it: the send, its answer, then the run's
    // end (this server serves the whole log at once: the end can come before the outbox's
    // last move is seen, so wait for it rather than race it).
    await waitFor(() => of(seen, 'conversation').length >= 3, 'the run ends');
    expect(
      of(seen, 'conversation').map(
        (e) => `${e.from}→${e.to} (${e.input}) run=${e.run} before=${e.before} [${e.effects}]`,
      ),
    ).toEqual([
      'idle→sending (send) run=null before=null [settle,post]',
      `sending→live (accepted) run=${runId} before=null [own]`,
      `live→idle (ended) run=${runId} before=null [drain]`,
    ]);
  });
});

describe('nobody listening', () => {
  const HUB = Symbol.for('@resumable/hooks.observers');
  type Hub = { seq: number; requests: number; unasked: number };
  const hub = () => (globalThis as Record<symbol, Hub>)[HUB]!;
  const counts = () => ({ seq: hub().seq, requests: hub().requests, unasked: hub().unasked });

  it('a whole run, a drop and a retry build no event, tell nothing and number nothing', async () => {
    // The hub is there (an earlier listener made it) and empty: an event built anyway
    // (a site that did not ask `observed()`) would count as `unasked`.
    observeClient(() => {})();
    const before = counts();
    server.handler = (hit, _req, res) =>
      hit.route === 'events' && hit.n === 1 && server.error(res, 503, 'store_unavailable');
    const h = open();
    await h.session.start({ runId: RUN, threadId: THREAD });
    await finished(h);
    expect(server.count('events')).toBe(2);
    expect(counts()).toEqual(before);
  });

  it('a listener that throws is reported and changes nothing; the others still hear every event', async () => {
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args[1]);
    try {
      stops.push(
        observeClient(() => {
          throw new ResumableError('bad_request', 'a broken devtools');
        }),
      );
      const seen = listen();
      const h = open();
      await h.session.start({ runId: RUN, threadId: THREAD });
      await finished(h);
      expect(seen.length).toBeGreaterThan(10);
      expect(errors.length).toBe(seen.length);
    } finally {
      console.error = original;
    }
  });
});
