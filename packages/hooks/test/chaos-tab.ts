/**
 * One seeded chaos schedule (cuts, duplicates, rewinds, reloads, crashes, offline spells,
 * server restarts) of one run against the scripted server, shared by the 200-schedule
 * test (chaos.test.ts) and the 1,000-schedule `pnpm bench chaos`.
 */

import { mulberry32 as prng } from '@resumable/server/testing';
import { createManualSignal } from '../src/core/base/env.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { RunSession } from '../src/core/run/run-session.js';
import { FakeServer } from './fake-server.js';
import { assistantText, waitFor } from './util.js';

/** A page's view of the shared IndexedDB: after `crash()` the page writes nothing more. */
export function pageStorage(backing: RecordStorage): RecordStorage & { crash(): void } {
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

export interface ChaosPage {
  session: RunSession;
  storage: ReturnType<typeof pageStorage>;
  release: () => void;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * One browser tab across reloads, driven by a seeded schedule: every page shares the tab's
 * IndexedDB and online signal, and `log` names each disruption for the failure line.
 */
export class ChaosTab {
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

export interface ScheduleResult {
  /** The failure line (seed, disruptions, what was wrong), or undefined. */
  failure: string | undefined;
  /** Characters of the server's text missing from the client's, and there twice. */
  lost: number;
  duplicated: number;
  actions: number;
}

/** Characters lost and duplicated, token by token (`tokN ` tokens are all distinct). */
export function charDiff(got: string, want: string): { lost: number; duplicated: number } {
  const count = (text: string) => {
    const counts = new Map<string, number>();
    for (const token of text.split(/(?<= )/))
      if (token) counts.set(token, (counts.get(token) ?? 0) + 1);
    return counts;
  };
  const g = count(got);
  const w = count(want);
  let lost = 0;
  let duplicated = 0;
  for (const [token, n] of w) lost += Math.max(0, n - (g.get(token) ?? 0)) * token.length;
  for (const [token, n] of g) duplicated += Math.max(0, n - (w.get(token) ?? 0)) * token.length;
  return { lost, duplicated };
}

/** Runs schedule `seed` against `server` (a FakeServer with tokens 1 per tick). */
export async function runSchedule(server: FakeServer, seed: number): Promise<ScheduleResult> {
  const random = prng(seed);
  const tokens = 5 + Math.floor(random() * 30);
  const runId = `run-chaos-${seed}-0123456789`;
  const threadId = `th-chaos-${seed}`;
  const run = server.createRun(runId, threadId, { paused: true, tokens });
  const tab = new ChaosTab(server.url);
  let actions = 0;
  await tab.page.session.attach({ runId, threadId, token: run.token });
  for (let step = 0; step < 12 && run.pending.length > 0; step++) {
    const r = random();
    actions++;
    if (r < 0.28) {
      const n = 1 + Math.floor(random() * 6);
      tab.log.push(`step${n}`);
      server.step(runId, n);
    } else if (r < 0.4) {
      tab.log.push('cut');
      server.dropConnections(runId);
    } else if (r < 0.5) {
      tab.log.push('dup');
      server.duplicate = true;
      server.step(runId, 2);
      server.duplicate = false;
    } else if (r < 0.6) {
      const n = 1 + Math.floor(random() * 5);
      tab.log.push(`rewind${n}`);
      server.rewind = n;
      server.dropConnections(runId);
    } else if (r < 0.66) {
      // A server restart seen from the client: every stream dropped, then a few
      // 503s while it comes back (its log survives, as a durable store's does).
      const down = 1 + Math.floor(random() * 3);
      tab.log.push(`restart${down}`);
      for (let i = 0; i < down; i++) {
        server.eventOverrides.push({
          status: 503,
          body: { error: { code: 'store_unavailable', message: 'restarting' } },
        });
      }
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
  let diff = { lost: 0, duplicated: 0 };
  const failure = await tab.settle(seed, 8000, async (session) => {
    const text = assistantText(session.getState().messages);
    diff = charDiff(text, FakeServer.fullText(tokens));
    return text !== server.text(runId) || text !== FakeServer.fullText(tokens)
      ? `got "${text}"`
      : undefined;
  });
  // Overrides a schedule left unused must not leak into the next one.
  server.eventOverrides.length = 0;
  if (failure && diff.lost === 0 && diff.duplicated === 0)
    diff.lost = FakeServer.fullText(tokens).length;
  return { failure, ...diff, actions };
}
