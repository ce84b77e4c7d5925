import { startServer } from '@resumable/server';
import { afterEach, describe, expect, it } from 'vitest';
import { LEADER_GRACE_MS } from '../src/core/base/defaults.js';
import type { TabChannel } from '../src/core/base/env.js';
import { createManualSignal } from '../src/core/base/env.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { FakeServer } from './fake-server.js';
import { RUN_TOKENS, tabClients } from './tab-clients.js';
import { trackRejections } from './track-rejections.js';
import { waitFor } from './util.js';
import { LockManagerStandIn } from './web-locks.js';

/**
 * A leader that hangs — its page's event loop blocked, the tab alive — keeps its Web Lock
 * (the browser releases it only when the tab goes), and a heartbeat any tab can make up
 * hides it. A follower takes over on what no tab can fake: its run stood still while the
 * server's went on. Scripted server (the run step by step), real BroadcastChannel, a Web
 * Locks stand-in; the hung leader is a tab whose channel went silent both ways.
 */

trackRejections();

let server: { url: string; close(): Promise<void> };
let fake: FakeServer;
const { clients, tab, threadWithOneRun, runTabs } = tabClients(() => server.url, {
  withMethod: true,
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  await server.close();
});

/** Above the leader's heartbeat (TAB_HEARTBEAT_MS, 500): a live leader is never stale here. */
const STALE_MS = 1200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A tab's world until `hang()`, then as a hung page's: its channel posts and hears nothing,
 * its timers never fire (its heartbeat and its watch stop). Only its pending fetches go on.
 */
function hangable() {
  let hung = false;
  const env = {
    channel(name: string): TabChannel {
      const real = new BroadcastChannel(name);
      return {
        post: (message) => hung || real.postMessage(message),
        subscribe(listener) {
          const on = (event: MessageEvent) => hung || listener(event.data);
          real.addEventListener('message', on);
          return () => real.removeEventListener('message', on);
        },
        close: () => real.close(),
      };
    },
    setTimeout: (fn: () => void, ms: number): unknown => setTimeout(() => hung || fn(), ms),
  };
  return {
    env,
    hang: () => {
      hung = true;
    },
  };
}

/** Another tab posting the leader's heartbeat every 100 ms; returns the stop. */
function madeUpHeartbeat(): () => void {
  const evil = new BroadcastChannel(`resumable-tabs:${server.url}:c`);
  const beat = setInterval(() => {
    evil.postMessage({ v: 1, t: 'lead', tab: 'evil', key: 'c', run: null, offset: 0 });
  }, 100);
  return () => {
    clearInterval(beat);
    evil.close();
  };
}

/** `a` leads and hangs mid-run (the server 3 events past the 4 `b` has); `b` follows. */
async function hungLeader(bVisible: boolean, beforeHang = () => {}) {
  fake = await new FakeServer({ tokens: RUN_TOKENS, intervalMs: 1 }).start();
  server = fake;
  const a$ = hangable();
  const envB = { visible: createManualSignal(bVisible) };
  const t = await runTabs(fake, { chat: { leaderStaleMs: STALE_MS }, envA: a$.env, envB });
  const [, logB] = t.logs;
  beforeHang();
  a$.hang();
  fake.step(t.runId, 3); // the server at 7; a, hung, posts nothing
  const hungAt = Date.now();
  // From here every check of b's sees the server at 7 (one before, at 4, is not counted).
  const seen = logB.length;
  return { ...t, hungAt, logB: () => logB.slice(seen) };
}

/** `b` took over from its own offset (4), after one check, and ends with the server's text. */
async function tookOver(t: Awaited<ReturnType<typeof hungLeader>>) {
  await waitFor(() => t.b.run.shared.role === 'leader', 'b leads', 10_000);
  expect(Date.now() - t.hungAt).toBeGreaterThanOrEqual(LEADER_GRACE_MS);
  await waitFor(() => t.text(t.b) === FakeServer.fullText(7 - 2), `b at 7: ${t.text(t.b)}`);
  fake.resume(t.runId);
  await waitFor(() => t.b.run.getState().status === 'finished', `finished: ${t.text(t.b)}`);
  expect(t.text(t.b)).toBe(FakeServer.fullText(RUN_TOKENS));
  expect(t.b.run.getState().run.offset).toBe(RUN_TOKENS + 4);
  // One check, then as the leader: the run's stream from b's own 4, the thread stream's point.
  const threadId = t.b.run.getState().threadId;
  expect(t.logB().sort()).toEqual(
    [
      `GET /runs/${t.runId}`,
      `GET /runs/${t.runId}/events?after=4`,
      `GET /threads/${threadId}`,
    ].sort(),
  );
}

describe('a leader that hangs mid-run', () => {
  it('behind a made-up heartbeat: the follower checks the server once, and takes over', async () => {
    let stop = () => {};
    try {
      await tookOver(await hungLeader(true, () => (stop = madeUpHeartbeat())));
    } finally {
      stop();
    }
  });

  it('with every follower hidden (no heartbeat watch): taken over too', async () => {
    await tookOver(await hungLeader(false));
  });
});

describe('a leader that hangs while no run is live', () => {
  it('behind a made-up heartbeat: a visible follower checks the thread once, and takes over', async () => {
    server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
    const { threadId, token, thread } = await threadWithOneRun();
    const storage = createMemoryStorage();
    const manager = new LockManagerStandIn();
    const [logA, logB] = [[] as string[], [] as string[]];
    const a$ = hangable();
    const options = { threadId, token, leaderStaleMs: STALE_MS };
    const a = tab(storage, logA, manager.client(), a$.env).chatSession('c', options);
    a.retain();
    await waitFor(() => logA.includes(`GET ${thread}/events?after=2`), `a follows: ${logA}`);
    const b = tab(storage, logB, manager.client()).chatSession('c', options);
    b.retain();
    await waitFor(() => b.run.shared.role === 'follower', 'b follows');
    await waitFor(() => logB.length === 2, `b loaded: ${logB}`);
    const stop = madeUpHeartbeat();
    a$.hang();
    let seen = 0;
    try {
      // A rename from another device (thread event 3): a reads it and posts nothing.
      const renamed = await fetch(`${server.url}${thread}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'Renamed' }),
      });
      expect(renamed.status).toBe(200);
      // From here every check of b's sees the server at 3 (one before, at 2, is not counted).
      seen = logB.length;
      await waitFor(() => b.run.shared.role === 'leader', 'b leads', 10_000);
      await waitFor(() => logB.length >= seen + 3, `b resumed: ${logB}`);
      await sleep(100);
    } finally {
      stop();
    }
    // One check, then as the leader: its thread stream from its own 2, and the renamed page.
    expect(logB.slice(seen).sort()).toEqual(
      [`GET ${thread}`, `GET ${thread}/events?after=2`, `GET ${thread}/messages?limit=50`].sort(),
    );
  });
});
