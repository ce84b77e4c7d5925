import { afterEach, describe, expect, it } from 'vitest';
import type { TabChannel } from '../src/core/env.js';
import { createManualSignal } from '../src/core/env.js';
import { LEADER_GRACE_MS } from '../src/core/leader-watch.js';
import { createMemoryStorage } from '../src/core/storage.js';
import { FakeServer } from './fake-server.js';
import { tabClients } from './tab-clients.js';
import { trackRejections } from './track-rejections.js';
import { assistantText, waitFor } from './util.js';
import { LockManagerStandIn } from './web-locks.js';

/**
 * A leader that hangs — its page's event loop blocked, the tab alive — keeps its Web Lock
 * (the browser releases it only when the tab goes), and a heartbeat any tab can make up
 * hides it. A follower takes over on what no tab can fake: its run stood still while the
 * server's went on. Scripted server (the run step by step), real BroadcastChannel, a Web
 * Locks stand-in; the hung leader is a tab whose channel went silent both ways.
 */

trackRejections();

let server: FakeServer;
const { clients, tab } = tabClients(() => server.url, { withMethod: true });

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  await server.close();
});

const TOKENS = 12;
const STALE_MS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A real BroadcastChannel a tab uses until `hang()`: then it posts and hears nothing. */
function hangable() {
  let hung = false;
  return {
    hang: () => {
      hung = true;
    },
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
  };
}

/** `a` leads and hangs mid-run (the server 3 events past the 4 `b` has); `b` follows. */
async function hungLeader(bVisible: boolean) {
  server = await new FakeServer({ tokens: TOKENS, intervalMs: 1 }).start();
  server.pauseNew = true;
  const storage = createMemoryStorage();
  const manager = new LockManagerStandIn();
  const [logA, logB] = [[] as string[], [] as string[]];
  const a$ = hangable();
  const options = { leaderStaleMs: STALE_MS };
  const a = tab(storage, logA, manager.client(), { channel: a$.channel }).chatSession('c', options);
  a.retain();
  await waitFor(() => a.run.shared.role === 'leader', 'a leads');
  const visible = createManualSignal(bVisible);
  const b = tab(storage, logB, manager.client(), { visible }).chatSession('c', options);
  b.retain();
  await waitFor(() => b.run.shared.role === 'follower', 'b follows');
  await a.send('hello');
  const runId = a.run.getState().runId!;
  server.step(runId, 4); // RUN_STARTED, TEXT_MESSAGE_START, tok0, tok1
  const text = (chat: typeof b) => assistantText(chat.getState().messages);
  await waitFor(() => text(b) === 'tok0 tok1 ', `b at 4: ${text(b)}`);
  await sleep(50);
  const seen = logB.length;
  a$.hang();
  server.step(runId, 3); // the server at 7; a folds them, and posts nothing
  await waitFor(() => a.run.getState().run.offset === 7, 'a at 7');
  return { a, b, runId, text, logB: () => logB.slice(seen) };
}

/** `b` took over from its own offset (4), after one check, and ends with the server's text. */
async function tookOver(t: Awaited<ReturnType<typeof hungLeader>>, started: number) {
  await waitFor(() => t.b.run.shared.role === 'leader', 'b leads', 5000);
  const waited = Date.now() - started;
  expect(waited).toBeGreaterThanOrEqual(STALE_MS + LEADER_GRACE_MS);
  await waitFor(() => t.text(t.b) === FakeServer.fullText(7 - 2), `b at 7: ${t.text(t.b)}`);
  server.resume(t.runId);
  await waitFor(() => t.b.run.getState().status === 'finished', `finished: ${t.text(t.b)}`);
  expect(t.text(t.b)).toBe(FakeServer.fullText(TOKENS));
  expect(t.b.run.getState().run.offset).toBe(TOKENS + 4);
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
    const t = await hungLeader(true);
    const started = Date.now();
    const evil = new BroadcastChannel(`resumable-tabs:${server.url}:c`);
    const beat = setInterval(() => {
      evil.postMessage({ v: 1, t: 'lead', tab: 'evil', key: 'c', run: null, offset: 0 });
    }, 100);
    try {
      await tookOver(t, started);
    } finally {
      clearInterval(beat);
      evil.close();
    }
  });

  it('with every follower hidden (no heartbeat watch): taken over too', async () => {
    const t = await hungLeader(false);
    await tookOver(t, Date.now());
  });
});
