import { ResumableError } from '@resumable/protocol';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CLAIM_GRACE_MS } from '../src/defaults.js';
import { MemoryStore, type RunningServer } from '../src/index.js';
import { CLUSTER_STORES, serve, tempDir } from './helpers.js';
import {
  answer,
  approved,
  asked,
  expectAnswered,
  getJson,
  replyOf,
  rid,
} from './interrupt-helpers.js';

const REPLY = 'Approved: I deleted notes/old-draft.md.';

/** The interrupt as `GET /runs/{id}` shows it: its status and who answered. */
async function shown(server: RunningServer, t: { runId: string; token: string }) {
  const run = await getJson(`${server.url}/runs/${t.runId}`, t.token);
  const [view] = run.interrupts as Array<{ status: string; answeredBy?: string }>;
  return { status: view!.status, answeredBy: view!.answeredBy };
}

/**
 * A claim whose continuation run was never created (its creation failed, and so did the
 * release of the claim, or the server died in between) must not hold the interrupt forever.
 */
describe.each(CLUSTER_STORES)('an abandoned interrupt claim on the $name store', ({ create }) => {
  const dir = tempDir();
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
    dir.cleanup();
  });

  it('is given up after the grace: the interrupt is open and any runId answers it; a fresh one still wins', async () => {
    const server = await serve(create, dir.path);
    servers.push(server);
    // What such a failure leaves: an answer by a run the store does not have.
    const claimBy = async (
      t: { threadId: string; runId: string; interruptId: string },
      at: number,
    ) => {
      const ghost = rid();
      const key = `${t.runId}/${t.interruptId}`;
      const answers = [
        { interruptId: key, runId: ghost, status: 'resolved' as const, answeredAt: at },
      ];
      expect(await server.store.interrupts.claim(t.threadId, ghost, answers)).toBe(null);
      return ghost;
    };
    const old = await asked(server);
    await claimBy(old, Date.now() - CLAIM_GRACE_MS - 1000);
    expect(await shown(server, old)).toEqual({ status: 'open', answeredBy: undefined });
    expect((await getJson(`${server.url}/threads/${old.threadId}`, old.token)).waiting).toBe(true);
    const next = rid();
    expect((await answer(server, old, approved(old.interruptId), next)).status).toBe(201);
    expect(await replyOf(server, next, old.token)).toBe(REPLY);
    expect(await shown(server, old)).toEqual({ status: 'resolved', answeredBy: next });

    // Within the grace the run may still be being created: the claim stands.
    const fresh = await asked(server);
    const ghost = await claimBy(fresh, Date.now());
    expectAnswered(
      await answer(server, fresh, approved(fresh.interruptId)),
      fresh.interruptId,
      ghost,
    );
  });
});

describe('a continuation whose creation and release both fail (memory store)', () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const server of servers.splice(0)) await server.close();
  });

  it('holds the interrupt only for the grace, then another answer continues the thread', async () => {
    const store = new MemoryStore();
    const failing = { createRun: false, release: false };
    const createRun = store.createRun.bind(store);
    store.createRun = async (run) => {
      if (failing.createRun)
        throw new ResumableError('store_unavailable', 'the test store is down');
      return createRun(run);
    };
    const release = store.interrupts.release.bind(store.interrupts);
    store.interrupts.release = async (...args) => {
      if (failing.release) throw new ResumableError('store_unavailable', 'the test store is down');
      return release(...args);
    };
    const server = await serve(() => store, '', { log: () => {} });
    servers.push(server);
    const t = await asked(server);
    Object.assign(failing, { createRun: true, release: true });
    const lost = rid();
    const failed = await answer(server, t, approved(t.interruptId), lost);
    expect([failed.status, failed.json]).toEqual([
      503,
      { error: { code: 'store_unavailable', message: 'the test store is down' } },
    ]);
    Object.assign(failing, { createRun: false, release: false });
    // The claim outlived its run: for now another answer learns of the run that never was.
    expectAnswered(await answer(server, t, approved(t.interruptId)), t.interruptId, lost);
    expect(await shown(server, t)).toEqual({ status: 'resolved', answeredBy: lost });
    // Past the grace (only the clock moves: timers stay real) the claim is given up.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + CLAIM_GRACE_MS + 1000 });
    expect(await shown(server, t)).toEqual({ status: 'open', answeredBy: undefined });
    const next = rid();
    expect((await answer(server, t, approved(t.interruptId), next)).status).toBe(201);
    expect(await replyOf(server, next, t.token)).toBe(REPLY);
    expect(await shown(server, t)).toEqual({ status: 'resolved', answeredBy: next });
  });
});
