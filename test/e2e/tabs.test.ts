import { DEFAULT_LABELS as LABELS } from '@resumable/ui';
import { describe, expect, test } from 'vitest';
import {
  chaos,
  DemoPage,
  fetchRun,
  type StartedRun,
  serverText,
  squash,
  waitForRunEnd,
} from './demo-page.js';
import { useDemoStack } from './fixture.js';
import type { Stack } from './harness.js';

/**
 * One conversation, many tabs, one connection: the tabs of a browser elect a leader with
 * Web Locks, the leader alone holds the event streams (counted at the server), the others
 * fold its batches; a leader that closes mid-answer is replaced within a second and every
 * tab ends with the server's text. And a conversation is followed, not a run: another
 * browser (another device) sees runs started elsewhere appear live.
 */

const LONG_PROMPT = 'Write a long answer: how does this chat survive a reload?';

const e2e = useDemoStack();

interface StreamCounts {
  run: { open: number; opened: number };
  thread: { open: number; opened: number };
}

/** The demo server's own count of event streams (`GET /api/__chaos/streams`). */
async function streams(stack: Stack): Promise<StreamCounts> {
  const response = await fetch(`${stack.api.origin}/api/__chaos/streams`);
  return (await response.json()) as StreamCounts;
}

async function expectReply(demo: DemoPage, text: string) {
  await demo.waitForMessageStatus('complete');
  expect(await demo.copiedText()).toBe(text);
  expect(squash(await demo.assistantText())).toBe(squash(text));
}

describe('tabs share one connection; devices follow the conversation', () => {
  test('three tabs: one event stream at the server; the leader closes mid-answer, another leads within 1 s; all end equal to the server', async () => {
    const context = await e2e.newContext();
    const a = await DemoPage.open(context, e2e.stack);
    const b = await DemoPage.open(context, e2e.stack);
    const c = await DemoPage.open(context, e2e.stack);
    // The answer is held (the fixture's `HOLD_MS` an event): the leader must still be
    // mid-answer when it closes, however busy the machine.
    await b.send(LONG_PROMPT);
    const run = await b.run();
    // One tab leads: it alone holds the streams; the two others say so.
    const tabs = [a, b, c];
    const lines = () => Promise.all(tabs.map((t) => t.status.textContent()));
    await expect
      .poll(async () => (await lines()).sort(), { timeout: 10_000 })
      .toEqual(['', LABELS.viaTab, LABELS.viaTab]);
    const first = tabs[(await lines()).indexOf('')]!;
    for (const tab of tabs) await tab.waitForText(100);
    for (const follower of tabs.filter((t) => t !== first)) {
      expect(follower.eventsRequests).toEqual([]);
    }
    expect(first.eventsRequests.map((r) => r.runId)).toEqual([run.runId]);
    await expect
      .poll(() => streams(e2e.stack), { timeout: 5000 })
      .toEqual({
        run: { open: 1, opened: 1 },
        thread: { open: 1, opened: 1 },
      });

    await first.page.close();
    const closed = Date.now();
    await expect
      .poll(async () => (await streams(e2e.stack)).run.opened, { interval: 25, timeout: 5000 })
      .toBe(2);
    expect(Date.now() - closed).toBeLessThan(1000);
    // The new leader resumed from its own offset, not from 0.
    const [x, y] = tabs.filter((t) => t !== first) as [DemoPage, DemoPage];
    // The server counts the stream as it opens; the page records the request a moment later.
    await expect
      .poll(() => x.eventsRequests.length + y.eventsRequests.length, { timeout: 5000 })
      .toBe(1);
    const leader = x.eventsRequests.length === 1 ? x : y;
    const follower = leader === x ? y : x;
    expect(leader.eventsRequests.map((r) => r.after > 0)).toEqual([true]);
    expect(follower.eventsRequests).toEqual([]);
    await expect.poll(() => follower.status.textContent(), { timeout: 5000 }).toBe(LABELS.viaTab);
    // The hand-over mid-answer is proven: the rest of the answer comes at once.
    await e2e.release();

    const snapshot = await waitForRunEnd(e2e.stack, run as StartedRun);
    expect(snapshot.status).toBe('finished');
    const text = serverText(snapshot);
    await expectReply(leader, text);
    await expectReply(follower, text);
    // A third tab opened now shows the same, from what the new leader stored and the server.
    const again = await DemoPage.open(context, e2e.stack);
    await expectReply(again, text);
    expect((await streams(e2e.stack)).run.open).toBe(0);
  });

  test('a frozen leader lets go: the other tab leads within 1 s; thawed, it follows, and a Stop from it ends the run for both', async () => {
    const context = await e2e.newContext();
    const a = await DemoPage.open(context, e2e.stack);
    const b = await DemoPage.open(context, e2e.stack);
    await a.send(LONG_PROMPT);
    const run = await a.run();
    await b.waitForText(100);
    // The Stop below must land while the run is still going: the election, the freeze, the
    // takeover and the thaw take seconds on a loaded machine, the held 12 s answer can end
    // first. Slowed now (40 ms an event: ~30 s left), the run outlasts them by far.
    expect((await chaos(e2e.stack, 'slow', { delayMs: 40 })).status).toBe(200);
    const lines = () => Promise.all([a, b].map((t) => t.status.textContent()));
    await expect
      .poll(async () => (await lines()).sort(), { timeout: 10_000 })
      .toEqual(['', LABELS.viaTab]);
    const [leader, other] = (await lines())[0] === '' ? [a, b] : [b, a];
    const opened = (await streams(e2e.stack)).run.opened;

    // What Chrome does to a background tab it freezes: the page gets 'freeze', then runs no
    // more tasks. The DevTools protocol's freeze skips the event, so the test fires it first.
    const cdp = await context.newCDPSession(leader.page);
    await leader.page.evaluate(() => document.dispatchEvent(new Event('freeze')));
    await cdp.send('Page.setWebLifecycleState', { state: 'frozen' });
    const frozen = Date.now();
    await expect
      .poll(async () => (await streams(e2e.stack)).run.opened, { interval: 25, timeout: 5000 })
      .toBe(opened + 1);
    expect(Date.now() - frozen).toBeLessThan(1000);
    // The page's own record of that request comes through Playwright's events, which may
    // reach the test after the server counted it (seen once: [] right after the count).
    await expect
      .poll(() => other.eventsRequestsFor(run.runId).map((r) => r.after > 0), { timeout: 5000 })
      .toEqual([true]);

    await cdp.send('Page.setWebLifecycleState', { state: 'active' });
    await leader.page.evaluate(() => document.dispatchEvent(new Event('resume')));
    await expect.poll(() => leader.status.textContent(), { timeout: 10_000 }).toBe(LABELS.viaTab);
    await leader.page.getByRole('button', { name: 'Stop', exact: true }).click();
    const snapshot = await waitForRunEnd(e2e.stack, run as StartedRun);
    expect(snapshot.status).toBe('cancelled');
    for (const tab of [leader, other]) {
      await tab.waitForMessageStatus('stopped');
      expect(await tab.copiedText()).toBe(serverText(snapshot));
    }
  });

  test('another device following the thread sees a run started elsewhere, and one started by the server, appear live', async () => {
    const phone = await e2e.openDemo();
    await phone.send('What time is it?');
    const first = await phone.run();
    await phone.waitForText(20);
    await phone.page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect
      .poll(async () => (await fetchRun(e2e.stack, first)).status, { timeout: 10_000 })
      .toBe('cancelled');

    const laptop = await e2e.openDemo(`?thread=${first.threadId}#token=${first.token}`);
    await laptop.page.getByText('What time is it?').first().waitFor({ timeout: 10_000 });
    // Loaded from the history, the stopped answer is shown stopped, as on the phone.
    await expect.poll(() => laptop.assistant.getAttribute('data-status')).toBe('stopped');
    let loads = 0;
    laptop.page.on('load', () => loads++);

    await phone.send(LONG_PROMPT);
    await expect.poll(() => phone.runs.length, { timeout: 10_000 }).toBe(2);
    const second = phone.runs[1]!;
    // Live on the laptop: the prompt, then the reply growing while the run still runs.
    await laptop.page.getByText(LONG_PROMPT).last().waitFor({ timeout: 10_000 });
    await laptop.waitForText(100);
    expect((await fetchRun(e2e.stack, second)).status).toBe('running');
    await phone.page.getByRole('button', { name: 'Stop', exact: true }).click();
    await expect
      .poll(async () => (await fetchRun(e2e.stack, second)).status, { timeout: 10_000 })
      .toBe('cancelled');
    // Polled on the attribute so a failure says what the laptop shows instead.
    const lastReply = laptop.page.locator('[data-role="assistant"]').last();
    await expect
      .poll(() => lastReply.getAttribute('data-status'), { timeout: 30_000 })
      .toBe('stopped')
      .catch((error: Error) => {
        throw new Error(`laptop's last reply status: ${error.message}; ${laptop.describe()}`);
      });

    // A run no client started: the server's own (a job, a webhook).
    const serverRun = laptop.page.getByRole('button', { name: 'Start a run from the server' });
    await serverRun.click();
    for (const device of [phone, laptop]) {
      await device.page
        .getByText('A scheduled job: summarize this conversation so far.')
        .last()
        .waitFor({ timeout: 10_000 });
      await device.waitForText(60);
    }
    expect(loads).toBe(0);
  });
});
