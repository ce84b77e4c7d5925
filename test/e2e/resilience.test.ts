import { DEFAULT_LABELS as LABELS } from '@resumable/ui';
import { describe, expect, test } from 'vitest';
import {
  chaos,
  DemoPage,
  fetchRun,
  pollUntil,
  serverText,
  sleep,
  squash,
  waitForRunEnd,
} from './demo-page.js';
import { useDemoStack } from './fixture.js';
import { screenshot } from './harness.js';

/**
 * The product's claim, proven in real Chromium against the real server: whatever happens to
 * the page, the network or the server, the answer on screen ends equal — character for
 * character — to what the server says the run produced.
 */

const LONG_PROMPT = 'Write a long answer: how does this chat survive a reload?';

const e2e = useDemoStack();

/**
 * The reply on the page equals the server's text for the run: its raw text character for
 * character, and the rendered text on screen with only Markdown syntax and spacing removed.
 */
async function expectReplyEqualsServer(demo: DemoPage, text: string) {
  expect(await demo.copiedText()).toBe(text);
  expect(squash(await demo.assistantText())).toBe(squash(text));
}

describe('the demo in Chromium', () => {
  test('reload three times during a long answer: resumes from the persisted offset', async () => {
    const demo = await e2e.openDemo();
    await demo.send(LONG_PROMPT);
    const run = await demo.run();

    // Past the first throttled write of the record (at most 4 a second).
    let shown = await demo.waitForText(200);
    let stored = 0;
    for (let i = 0; i < 3; i++) {
      // Reload only once the page has stored a point past the last one (asserted below).
      stored = await demo.waitForStoredOffset(run.runId, stored);
      shown = await demo.assistantText();
      const before = demo.eventsRequestsFor(run.runId).length;
      await demo.page.reload();
      // The reloaded page shows the persisted snapshot at once, then resumes after it. The
      // snapshot can already hold 20 more characters than `shown` (the page-hide flush
      // stores the latest state), so the resumed request is waited for, not assumed.
      await demo.composer.waitFor();
      const resumed = await pollUntil(
        async () => demo.eventsRequestsFor(run.runId).slice(before),
        (requests) => requests.length > 0,
        { timeoutMs: 10_000 },
        () => `no events request after reload ${i + 1}: ${demo.describe()}`,
      );
      expect(resumed[0]!.after, demo.describe()).toBeGreaterThanOrEqual(stored);
      shown = await demo.waitForText(shown.length + 20);
    }
    // Three resumes mid-answer, proven: the rest of the answer need not take its time.
    await e2e.release();

    const snapshot = await waitForRunEnd(e2e.stack, run);
    expect(snapshot.status).toBe('finished');
    await demo.waitForMessageStatus('complete');
    await expectReplyEqualsServer(demo, serverText(snapshot));
  });

  test('offline for 5 s mid-answer: the status says offline, then resumed; no text doubled', async () => {
    const demo = await e2e.openDemo();
    await demo.send(LONG_PROMPT);
    const run = await demo.run();
    await demo.waitForText(40);

    await e2e.context.setOffline(true);
    // Chromium's offline mode leaves an open stream running: drop it server-side too.
    expect((await chaos(e2e.stack, 'cut', { runId: run.runId })).status).toBe(200);
    await expect
      .poll(() => demo.status.textContent(), { timeout: 10_000 })
      .toBe(LABELS.offline(true));
    await screenshot(demo.page, 'offline-mid-stream');
    const offlineText = await demo.assistantText();
    await sleep(5_000);
    // Nothing arrived while offline.
    expect(await demo.assistantText()).toBe(offlineText);

    const requestsBefore = demo.eventsRequestsFor(run.runId).length;
    await e2e.context.setOffline(false);
    // "Reconnected — caught up n events", n being what the resumed stream replayed.
    await expect
      .poll(() => demo.status.textContent(), { timeout: 15_000 })
      .toMatch(/^Reconnected — caught up [1-9]\d* events?$/);
    const resumed = demo.eventsRequestsFor(run.runId).slice(requestsBefore);
    expect(resumed[0]!.after).toBeGreaterThan(0);
    await screenshot(demo.page, 'offline-resumed');
    await e2e.release();

    const snapshot = await waitForRunEnd(e2e.stack, run);
    await demo.waitForMessageStatus('complete');
    await expectReplyEqualsServer(demo, serverText(snapshot));
    await screenshot(demo.page, 'offline-recovered');
  });

  test('ten offline spells mid-answer (1280×800, then 390×844): each says offline, then "Reconnected — caught up n events", never "Reconnecting"', async () => {
    const demo = await e2e.openDemo();
    // Every text the status line shows, in order, recorded in the page as it is drawn.
    await demo.page.evaluate(() => {
      const seen: { at: number; text: string }[] = [];
      const line = () => document.querySelector('.rc-connection [role="status"]');
      new MutationObserver(() => {
        const text = line()?.textContent ?? '';
        if (seen.at(-1)?.text !== text) seen.push({ at: Date.now(), text });
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
      (window as unknown as { __statusLines: typeof seen }).__statusLines = seen;
    });
    const lines = () =>
      demo.page.evaluate(
        () =>
          (window as unknown as { __statusLines: { at: number; text: string }[] }).__statusLines,
      );
    // The filler reply at 60 ms an event: 36 s, longer than the ten spells.
    await chaos(e2e.stack, 'slow', { delayMs: 60 });
    await demo.send(LONG_PROMPT);
    const run = await demo.run();
    await demo.waitForText(40);
    await demo.page.getByRole('spinbutton', { name: 'Offline seconds' }).fill('2');
    const spells: number[] = [];
    for (let spell = 0; spell < 10; spell++) {
      if (spell === 5) await demo.page.setViewportSize({ width: 390, height: 844 });
      spells.push(Date.now());
      // The demo's own button (on a phone, behind "Chaos & inspector"): the page's network
      // goes away for 2 s, its open stream with it.
      const panel = demo.page.getByRole('button', { name: 'Chaos & inspector' });
      if ((await panel.isVisible()) && (await panel.getAttribute('aria-expanded')) !== 'true') {
        await panel.click();
      }
      await demo.page.getByRole('button', { name: 'Go offline' }).click();
      await pollUntil(
        lines,
        (seen) => seen.some((l) => l.at >= spells[spell]! && l.text.startsWith('Reconnected')),
        { timeoutMs: 15_000 },
        (seen) => `spell ${spell + 1}: ${JSON.stringify(seen.slice(-6))}; ${demo.describe()}`,
      );
    }
    const seen = await lines();
    expect(
      seen.filter((l) => l.text.startsWith('Reconnecting') || l.text.startsWith('Can')),
    ).toEqual([]);
    for (let spell = 0; spell < 10; spell++) {
      const said = seen
        .filter((l) => l.at >= spells[spell]! && l.at < (spells[spell + 1] ?? Infinity))
        .map((l) => l.text)
        .filter((text) => text !== '');
      expect(said, `spell ${spell + 1}`).toHaveLength(2);
      expect(said[0], `spell ${spell + 1}`).toBe(LABELS.offline(true));
      expect(said[1], `spell ${spell + 1}`).toMatch(/^Reconnected — caught up [1-9]\d* events?$/);
    }
    await screenshot(demo.page, 'offline-spells-phone');
    await e2e.release();
    const snapshot = await waitForRunEnd(e2e.stack, run);
    await demo.waitForMessageStatus('complete');
    await expectReplyEqualsServer(demo, serverText(snapshot));
  });

  test('server restart mid-answer: reconnects, the run ends agent_lost, the prefix is intact', async () => {
    const demo = await e2e.openDemo();
    await demo.send(LONG_PROMPT);
    const run = await demo.run();
    await demo.waitForText(60);

    // The chaos panel's endpoint: the server process exits at once (no graceful shutdown),
    // its supervisor starts a new one on the same port and SQLite file. Called from here
    // rather than by clicking, so the kill lands mid-answer even on a starved machine.
    const pidBefore = e2e.stack.api.pid;
    const ready = e2e.stack.api.nextReady();
    expect((await chaos(e2e.stack, 'restart')).status).toBe(202);
    await ready;
    const restartedAt = Date.now();
    expect(e2e.stack.api.pid).not.toBe(pidBefore);

    await demo.waitForMessageStatus('error');
    // The client reconnected to the new process and resumed from its offset.
    const resumed = demo.eventsRequestsFor(run.runId).filter((r) => r.at >= restartedAt);
    expect(resumed.length, demo.describe()).toBeGreaterThan(0);
    expect(resumed[0]!.after, demo.describe()).toBeGreaterThan(0);
    const snapshot = await fetchRun(e2e.stack, run);
    expect(snapshot.status).toBe('error');
    expect(snapshot.error?.code).toBe('agent_lost');
    const text = serverText(snapshot);
    expect(text.length).toBeGreaterThan(60);
    await expectReplyEqualsServer(demo, text);
    // The page says why the answer stopped: the run was lost, not a connection problem.
    await expect.poll(() => demo.alertText(), { timeout: 10_000 }).toBe(LABELS.agentLost);
  });

  test('a second tab and a second device join mid-answer and end with the same text', async () => {
    const first = await e2e.openDemo();
    await first.send(LONG_PROMPT);
    const run = await first.run();
    await first.waitForText(40);
    // Held slower still (150 ms an event) while two more pages load on a busy machine.
    expect((await chaos(e2e.stack, 'slow', { delayMs: 150 })).status).toBe(200);

    const otherContext = await e2e.newContext();
    // The offsets of the run snapshots the device is answered (its join reads one first).
    const deviceSnapshots: number[] = [];
    otherContext.on('response', async (response) => {
      if (new URL(response.url()).pathname !== `/api/runs/${run.runId}`) return;
      const body = (await response.json().catch(() => null)) as { lastOffset?: number } | null;
      if (typeof body?.lastOffset === 'number') deviceSnapshots.push(body.lastOffset);
    });
    try {
      const [tab, device] = await Promise.all([
        // Same browser: the tab follows through the first one (one connection for both).
        DemoPage.open(e2e.context, e2e.stack, `?thread=${run.threadId}`),
        // Another browser: nothing stored, only the thread's link with its token. It joins
        // from the server's snapshot, then follows the live events after it.
        DemoPage.open(otherContext, e2e.stack, `?thread=${run.threadId}#token=${run.token}`),
      ]);
      await Promise.all([tab.waitForText(1), device.waitForText(1)]);
      expect((await fetchRun(e2e.stack, run)).status).toBe('running');
      // Released: the rest comes at once.
      expect((await chaos(e2e.stack, 'slow', { delayMs: 0 })).status).toBe(200);

      const snapshot = await waitForRunEnd(e2e.stack, run);
      const text = serverText(snapshot);
      // The device joined mid-answer: its first request resumed after the snapshot it was
      // answered, whichever of the snapshot join, the thread stream's announcement and its
      // tab election came first (packages/hooks/test/join-race.test.ts forces each order).
      const joined = device.eventsRequestsFor(run.runId);
      expect(joined.length, device.describe()).toBeGreaterThan(0);
      expect(deviceSnapshots.length, device.describe()).toBeGreaterThan(0);
      expect(joined[0]!.after, device.describe()).toBe(deviceSnapshots[0]);
      expect(joined[0]!.after, device.describe()).toBeGreaterThan(0);
      expect(joined[0]!.after, device.describe()).toBeLessThan(snapshot.lastOffset);
      // …and no later request of it went back to 0 (a thread announcement of the same run
      // converges on the join's resume point, #25).
      expect(
        joined.filter((r) => r.after === 0),
        device.describe(),
      ).toEqual([]);
      // The tab of the same browser opened no stream: the first tab leads and passes the
      // events on (tabs.test.ts covers the sharing itself).
      expect(tab.eventsRequestsFor(run.runId), tab.describe()).toEqual([]);
      for (const page of [first, tab, device]) {
        await page.waitForMessageStatus('complete');
        await expectReplyEqualsServer(page, text);
      }
      // Joining never starts a run.
      expect(tab.runPosts).toHaveLength(0);
      expect(device.runPosts).toHaveLength(0);
    } finally {
      await otherContext.close();
    }
  });

  test("the chaos panel's own buttons: cut the connection, go offline for 2 s", async () => {
    const demo = await e2e.openDemo();
    await demo.send(LONG_PROMPT);
    const run = await demo.run();
    await demo.waitForText(40);

    let requests = demo.eventsRequestsFor(run.runId).length;
    await demo.page.getByRole('button', { name: 'Cut the connection now' }).click();
    await expect.poll(() => demo.eventsRequestsFor(run.runId).length).toBeGreaterThan(requests);
    expect(demo.eventsRequestsFor(run.runId)[requests]!.after).toBeGreaterThan(0);

    // The page's simulated drop: navigator.onLine false, the stream fails, then back.
    requests = demo.eventsRequestsFor(run.runId).length;
    await demo.page.getByRole('spinbutton', { name: 'Offline seconds' }).fill('2');
    await demo.page.getByRole('button', { name: 'Go offline' }).click();
    // Shown after the status line's 1 s grace period, within the 2 s spell.
    await expect
      .poll(() => demo.status.textContent(), { timeout: 5000 })
      .toBe(LABELS.offline(true));
    await expect
      .poll(() => demo.eventsRequestsFor(run.runId).length, { timeout: 10_000 })
      .toBeGreaterThan(requests);
    expect(demo.eventsRequestsFor(run.runId)[requests]!.after).toBeGreaterThan(0);
    await e2e.release();

    const snapshot = await waitForRunEnd(e2e.stack, run);
    await demo.waitForMessageStatus('complete');
    await expectReplyEqualsServer(demo, serverText(snapshot));
  });

  test('Stop: the run ends cancelled, the partial text is kept as stopped, nothing revives it', async () => {
    const demo = await e2e.openDemo();
    await demo.send(LONG_PROMPT);
    const run = await demo.run();
    await demo.waitForText(40);

    await demo.page.getByRole('button', { name: 'Stop', exact: true }).click();
    await demo.waitForMessageStatus('stopped');
    const snapshot = await waitForRunEnd(e2e.stack, run);
    expect(snapshot.status).toBe('cancelled');
    const text = serverText(snapshot);
    await expectReplyEqualsServer(demo, text);

    // Cut whatever is open and wait: no reconnect, no new text.
    await chaos(e2e.stack, 'cut', { runId: run.runId });
    const requests = demo.eventsRequestsFor(run.runId).length;
    await sleep(2_000);
    expect(demo.eventsRequestsFor(run.runId)).toHaveLength(requests);
    await expectReplyEqualsServer(demo, text);

    // A reload shows it stopped too.
    await demo.page.reload();
    await demo.waitForMessageStatus('stopped');
    await expectReplyEqualsServer(demo, text);
    expect((await fetchRun(e2e.stack, run)).status).toBe('cancelled');
  });

  test('a prompt sent while offline is delivered once the network is back, exactly once', async () => {
    // Nothing here happens mid-answer: the answer comes as fast as it can.
    await e2e.release();
    const demo = await e2e.openDemo();
    await e2e.context.setOffline(true);
    await demo.send('What time is it?');
    await expect
      .poll(() => demo.page.locator('[data-role="user"][data-pending="queued"]').count(), {
        timeout: 5_000,
      })
      .toBe(1);
    await sleep(1_000);
    await e2e.context.setOffline(false);

    const run = await demo.run(15_000);
    const snapshot = await waitForRunEnd(e2e.stack, run);
    expect(snapshot.status).toBe('finished');
    await demo.waitForMessageStatus('complete');
    await expectReplyEqualsServer(demo, serverText(snapshot));

    // Exactly one run on the thread, and the prompt once in its history and on screen.
    const thread = await fetch(`${e2e.stack.api.origin}/api/threads/${run.threadId}`, {
      headers: { authorization: `Bearer ${run.token}` },
    });
    expect(thread.status).toBe(200);
    const body = (await thread.json()) as { runs: Array<{ runId: string }> };
    expect(body.runs.map((r) => r.runId)).toEqual([run.runId]);
    await expect.poll(() => demo.page.locator('[data-role="user"]').count()).toBe(1);
    expect(new Set(demo.runs.map((r) => r.runId)).size).toBe(1);
    await screenshot(demo.page, 'offline-prompt-delivered');
  });
});
