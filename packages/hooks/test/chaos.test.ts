import { messageText, type RunSnapshot } from '@resumable/protocol';
import { type RunningServer, startServer } from '@resumable/server';
import { mulberry32 as prng } from '@resumable/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChaosTab, runSchedule, sleep } from './chaos-tab.js';
import { FakeServer } from './fake-server.js';
import { assistantText } from './util.js';

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
      const result = await runSchedule(server, seed);
      actions += result.actions;
      if (result.failure) failures.push(result.failure);
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
