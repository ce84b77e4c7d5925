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

interface ChaosPage {
  session: RunSession;
  storage: ReturnType<typeof pageStorage>;
  release: () => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * One browser tab across reloads, driven by a seeded schedule: every page shares the tab's
 * IndexedDB and online signal, and `log` names each disruption for the failure line.
 */
class ChaosTab {
  readonly online = createManualSignal(true);
  readonly log: string[] = [];
  private readonly backing = createMemoryStorage();
  page: ChaosPage;

  constructor(private readonly endpoint: string) {
    this.page = this.open();
  }

  private open(): ChaosPage {
    const storage = pageStorage(this.backing);
    const session = new RunSession({
      endpoint: this.endpoint,
      key: 'chaos',
      storage,
      backoff: { initialMs: 1, maxMs: 4 },
      env: { online: this.online, visible: createManualSignal(true), onPageHide: () => () => {} },
      onWarning: () => {},
    });
    return { session, storage, release: session.retain() };
  }

  /** A reload: half the time the page flushed on pagehide, half the time it died. */
  async reload(random: () => number): Promise<void> {
    const flushed = random() < 0.5;
    this.log.push(flushed ? 'reload' : 'crash');
    if (flushed) await this.page.session.flush();
    else this.page.storage.crash();
    await this.page.session.dispose();
    this.page = this.open();
  }

  /** An offline spell that lasts as long as `during`. */
  async offline(during: () => Promise<void>): Promise<void> {
    this.log.push('offline');
    this.online.set(false);
    await during();
    this.online.set(true);
  }

  /**
   * Waits up to `timeoutMs` for the run to finish and asks `check` what is wrong with the
   * end (undefined: nothing); disposes the page and returns the failure line, if any.
   */
  async settle(
    seed: number,
    timeoutMs: number,
    check: (session: RunSession) => Promise<string | undefined>,
  ): Promise<string | undefined> {
    let problem: string | undefined;
    try {
      await waitFor(
        () => this.page.session.getState().status === 'finished',
        `seed ${seed} finished`,
        timeoutMs,
      );
      problem = await check(this.page.session);
    } catch (error) {
      problem = (error as Error).message;
    }
    await this.page.session.dispose();
    return problem === undefined ? undefined : `seed ${seed} [${this.log.join(' ')}]: ${problem}`;
  }
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
      const tab = new ChaosTab(server.url);
      await tab.page.session.attach({ runId, threadId, token: run.token });
      for (let step = 0; step < 12 && run.pending.length > 0; step++) {
        const r = random();
        actions++;
        if (r < 0.3) {
          const n = 1 + Math.floor(random() * 6);
          tab.log.push(`step${n}`);
          server.step(runId, n);
        } else if (r < 0.45) {
          tab.log.push('cut');
          server.dropConnections(runId);
        } else if (r < 0.55) {
          tab.log.push('dup');
          server.duplicate = true;
          server.step(runId, 2);
          server.duplicate = false;
        } else if (r < 0.65) {
          const n = 1 + Math.floor(random() * 5);
          tab.log.push(`rewind${n}`);
          server.rewind = n;
          server.dropConnections(runId);
        } else if (r < 0.8) {
          await tab.reload(random);
          await tab.page.session.hydrate();
        } else {
          await tab.offline(async () => {
            server.step(runId, 1 + Math.floor(random() * 3));
            await sleep(1 + random() * 4);
          });
        }
        await sleep(random() * 4);
      }
      server.resume(runId);
      const failure = await tab.settle(seed, 8000, async (session) => {
        const text = assistantText(session.getState().messages);
        return text !== server.text(runId) || text !== FakeServer.fullText(tokens)
          ? `got "${text}"`
          : undefined;
      });
      if (failure) failures.push(failure);
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
      const tab = new ChaosTab(real.url);
      const started = await tab.page.session.start({
        messages: [{ id: `u${seed}`, role: 'user', content: 'chaos' }],
        forwardedProps: { script: { tokens, tokensPerSecond: 800, seed } },
      });
      for (let step = 0; step < 6; step++) {
        await sleep(random() * 8);
        if (tab.page.session.getState().status === 'running') liveActions++;
        const r = random();
        if (r < 0.45) {
          tab.log.push('drop');
          real.manager.dropConnections(started.runId);
        } else if (r < 0.75) {
          await tab.reload(random);
        } else {
          await tab.offline(() => sleep(random() * 6));
        }
      }
      const failure = await tab.settle(seed, 10_000, async (session) => {
        const response = await fetch(`${real.url}/runs/${started.runId}`, {
          headers: { Authorization: `Bearer ${started.token}` },
        });
        const snapshot = (await response.json()) as RunSnapshot;
        const expected = snapshot.messages
          .filter((m) => m.role === 'assistant')
          .map((m) => messageText(m))
          .join('');
        const text = assistantText(session.getState().messages);
        return text !== expected || session.getState().connection.offset !== snapshot.lastOffset
          ? `got ${text.length} chars, want ${expected.length}`
          : undefined;
      });
      if (failure) failures.push(failure);
    }
    expect(failures).toEqual([]);
    // Most disruptions hit a run that was still streaming.
    expect(liveActions).toBeGreaterThan(SCHEDULES * 3);
  });
});
