// @vitest-environment jsdom
/** The default environment's wiring to real window/document events (no injected signals). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runRecordKey } from '../src/core/records/run-record.js';
import { createMemoryStorage, withFallback } from '../src/core/records/storage.js';
import { RunSession } from '../src/core/run/run-session.js';
import { FakeServer } from './fake-server.js';
import { assistantText, waitFor } from './util.js';

let server: FakeServer;
let online = true;
let visibility: 'visible' | 'hidden' = 'visible';
beforeEach(async () => {
  server = await new FakeServer({ tokens: 20, intervalMs: 3 }).start();
  Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => online });
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });
});
afterEach(async () => {
  online = true;
  visibility = 'visible';
  await server.close();
});

const RUN = 'run-browser-0123456789';
const afters = () => server.requests.filter((r) => r.path.endsWith('/events')).map((r) => r.after);

describe('the browser environment', () => {
  it('offline/online events park and resume the stream; pagehide flushes the record', async () => {
    server.createRun(RUN, 'th', { paused: true });
    const storage = createMemoryStorage();
    const session = new RunSession({
      endpoint: server.url,
      key: 'b',
      storage,
      maxWritesPerSecond: 0.001,
      backoff: { initialMs: 5, maxMs: 20 },
      onWarning: () => {},
    });
    const release = session.retain();
    await session.attach({ runId: RUN, threadId: 'th', token: 'tok-th' });
    await waitFor(() => session.getState().connection.phase === 'streaming', 'streaming');
    server.step(RUN, 5);
    await waitFor(() => session.getState().connection.offset === 5, 'offset 5');

    online = false;
    window.dispatchEvent(new Event('offline'));
    await waitFor(() => session.getState().connection.phase === 'offline', 'offline');

    visibility = 'hidden';
    document.dispatchEvent(new Event('visibilitychange'));
    let stored = 0;
    for (let i = 0; i < 100 && stored !== 5; i++) {
      await new Promise((r) => setTimeout(r, 2));
      stored = ((await storage.get(runRecordKey('b'))) as { offset: number }).offset;
    }
    expect(stored).toBe(5);

    online = true;
    visibility = 'visible';
    window.dispatchEvent(new Event('online'));
    server.resume(RUN);
    await waitFor(() => session.getState().status === 'finished', 'finished');
    expect(afters()).toEqual([0, 5]);
    expect(assistantText(session.getState().messages)).toBe(FakeServer.fullText(20));
    release();
    await session.dispose();
  });

  it('reports memory persistence when IndexedDB fails', async () => {
    const broken = {
      kind: 'indexeddb' as const,
      get: () => Promise.reject(new Error('SecurityError')),
      update: () => Promise.reject(new Error('SecurityError')),
      delete: () => Promise.reject(new Error('SecurityError')),
    };
    const warnings: string[] = [];
    const storage = withFallback(broken, createMemoryStorage(), (w) => warnings.push(w.code));
    const session = new RunSession({
      endpoint: server.url,
      key: 'm',
      storage,
      onWarning: () => {},
    });
    const release = session.retain();
    await session.hydrate();
    expect(session.getState().connection.persistence).toBe('memory');
    expect(warnings).toEqual(['storage_unavailable']);
    release();
    await session.dispose();
  });
});
