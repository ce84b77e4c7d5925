import { messageText, type RunSnapshot } from '@resumable/protocol';
import { mulberry32 as prng, type RunningServer, startServer } from '@resumable/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualSignal } from '../src/core/env.js';
import { RunSession } from '../src/core/session.js';
import type { RecordStorage } from '../src/core/storage.js';
import { createMemoryStorage } from '../src/core/storage.js';
import { FakeServer } from './fake-server.js';
import { assistantText, waitFor } from './util.js';

/** A page's view of the shared IndexedDB: after `crash()` the page writes nothing more. */
function pageStorage(backing: RecordStorage): RecordStorage & { crash(): void } {
  let crashed = false;
  return {
    kind: 'indexeddb',
    get: (key) => backing.get(key),
    update: (key, updater) => (crashed ? Promise.resolve() : backing.update(key, updater)),
    delete: (key) => (crashed ? Promise.resolve() : backing.delete(key)),
    crash() {
      crashed = true;
    },
  };
}

const SCHEDULES = 200;
let server: FakeServer;
beforeAll(async () => {
  server = await new FakeServer({ tokens: 1, intervalMs: 1 }).start();
});
afterAll(() => server.close());

describe(`chaos: ${SCHEDULES} seeded schedules of cuts, duplicates, reloads and offline spells`, () => {
  it('every run ends with exactly the server’s text', { timeout: 90_000 }, async () => {
    const failures: string[] = [];
    let actions = 0;
    for (let seed = 1; seed <= SCHEDULES; seed++) {
      const random = prng(seed);
      const tokens = 5 + Math.floor(random() * 30);
      const runId = `run-chaos-${seed}-0123456789`;
      const threadId = `th-chaos-${seed}`;
      const run = server.createRun(runId, threadId, { paused: true, tokens });
      const backing = createMemoryStorage();
      const online = createManualSignal(true);
      const open = () => {
        const storage = pageStorage(backing);
        const session = new RunSession({
          endpoint: server.url,
          key: 'chaos',
          storage,
          backoff: { initialMs: 1, maxMs: 4 },
          env: { online, visible: createManualSignal(true), onPageHide: () => () => {} },
          onWarning: () => {},
        });
        return { session, storage, release: session.retain() };
      };
      let page = open();
      await page.session.attach({ runId, threadId, token: run.token });
      const log: string[] = [];
      for (let step = 0; step < 12 && run.pending.length > 0; step++) {
        const r = random();
        actions++;
        if (r < 0.3) {
          const n = 1 + Math.floor(random() * 6);
          log.push(`step${n}`);
          server.step(runId, n);
        } else if (r < 0.45) {
          log.push('cut');
          server.dropConnections(runId);
        } else if (r < 0.55) {
          log.push('dup');
          server.duplicate = true;
          server.step(runId, 2);
          server.duplicate = false;
        } else if (r < 0.65) {
          const n = 1 + Math.floor(random() * 5);
          log.push(`rewind${n}`);
          server.rewind = n;
          server.dropConnections(runId);
        } else if (r < 0.8) {
          // A reload: half the time the page flushed on pagehide, half the time it died.
          const flushed = random() < 0.5;
          log.push(flushed ? 'reload' : 'crash');
          if (flushed) await page.session.flush();
          else page.storage.crash();
          await page.session.dispose();
          page = open();
          await page.session.hydrate();
        } else {
          log.push('offline');
          online.set(false);
          server.step(runId, 1 + Math.floor(random() * 3));
          await new Promise((r) => setTimeout(r, 1 + random() * 4));
          online.set(true);
        }
        await new Promise((r) => setTimeout(r, random() * 4));
      }
      server.resume(runId);
      try {
        await waitFor(
          () => page.session.getState().status === 'finished',
          `seed ${seed} finished`,
          8000,
        );
        const text = assistantText(page.session.getState().messages);
        if (text !== server.text(runId) || text !== FakeServer.fullText(tokens)) {
          failures.push(`seed ${seed} [${log.join(' ')}]: got "${text}"`);
        }
      } catch (error) {
        failures.push(`seed ${seed} [${log.join(' ')}]: ${(error as Error).message}`);
      }
      await page.session.dispose();
    }
    expect(failures).toEqual([]);
    expect(actions).toBeGreaterThan(SCHEDULES * 5);
  });
});

describe(`chaos on the real server: ${SCHEDULES} seeded schedules of drops, reloads and offline spells`, () => {
  let real: RunningServer;
  beforeAll(async () => {
    real = await startServer({ port: 0, store: 'memory' });
  });
  afterAll(() => real.close());

  it('every run ends with exactly the text of GET /runs/:id', { timeout: 120_000 }, async () => {
    const failures: string[] = [];
    let liveActions = 0;
    for (let seed = 1; seed <= SCHEDULES; seed++) {
      const random = prng(seed * 7919);
      const tokens = 20 + Math.floor(random() * 60);
      const backing = createMemoryStorage();
      const online = createManualSignal(true);
      const open = () => {
        const storage = pageStorage(backing);
        const session = new RunSession({
          endpoint: real.url,
          key: 'chaos',
          storage,
          backoff: { initialMs: 1, maxMs: 4 },
          env: { online, visible: createManualSignal(true), onPageHide: () => () => {} },
          onWarning: () => {},
        });
        return { session, storage, release: session.retain() };
      };
      let page = open();
      const started = await page.session.start({
        messages: [{ id: `u${seed}`, role: 'user', content: 'chaos' }],
        forwardedProps: { script: { tokens, tokensPerSecond: 800, seed } },
      });
      const log: string[] = [];
      for (let step = 0; step < 6; step++) {
        await new Promise((r) => setTimeout(r, random() * 8));
        if (page.session.getState().status === 'running') liveActions++;
        const r = random();
        if (r < 0.45) {
          log.push('drop');
          real.manager.dropConnections(started.runId);
        } else if (r < 0.75) {
          const flushed = random() < 0.5;
          log.push(flushed ? 'reload' : 'crash');
          if (flushed) await page.session.flush();
          else page.storage.crash();
          await page.session.dispose();
          page = open();
        } else {
          log.push('offline');
          online.set(false);
          await new Promise((r) => setTimeout(r, random() * 6));
          online.set(true);
        }
      }
      try {
        await waitFor(
          () => page.session.getState().status === 'finished',
          `seed ${seed} finished`,
          10_000,
        );
        const response = await fetch(`${real.url}/runs/${started.runId}`, {
          headers: { Authorization: `Bearer ${started.token}` },
        });
        const snapshot = (await response.json()) as RunSnapshot;
        const expected = snapshot.messages
          .filter((m) => m.role === 'assistant')
          .map((m) => messageText(m))
          .join('');
        const text = assistantText(page.session.getState().messages);
        if (
          text !== expected ||
          page.session.getState().connection.offset !== snapshot.lastOffset
        ) {
          failures.push(
            `seed ${seed} [${log.join(' ')}]: got ${text.length} chars, want ${expected.length}`,
          );
        }
      } catch (error) {
        failures.push(`seed ${seed} [${log.join(' ')}]: ${(error as Error).message}`);
      }
      await page.session.dispose();
    }
    expect(failures).toEqual([]);
    // Most disruptions hit a run that was still streaming.
    expect(liveActions).toBeGreaterThan(SCHEDULES * 3);
  });
});
