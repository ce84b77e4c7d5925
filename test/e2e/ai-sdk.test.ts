import { partsOf, segmentsOf } from '@resumable/hooks/ai-sdk';
import type { RunSnapshot } from '@resumable/protocol';
import { describe, expect, test } from 'vitest';
import {
  chaos,
  DemoPage,
  fetchRun,
  pollUntil,
  serverText,
  sleep,
  waitForRunEnd,
} from './demo-page.js';
import { useDemoStack } from './fixture.js';
import { screenshot } from './harness.js';

/**
 * The AI SDK's real `useChat` on `ResumableChatTransport` (`apps/demo/ai-sdk.html`) in
 * real Chromium against the real server: reloads and an offline spell mid-answer, and the
 * reply `useChat` ends with equals the server's snapshot part for part.
 */

const e2e = useDemoStack();

/**
 * The page's `useChat` holds one reply, under the run id, whose parts equal the server's
 * snapshot and whose text is the server's exactly. The AI SDK's duplicate-on-resume bug
 * (the resumed stream replayed onto the reply, or pushed as a second one) fails each check.
 */
async function expectExactReply(demo: DemoPage, runId: string, snapshot: RunSnapshot) {
  const chat = (await demo.page.evaluate(() => window.__aiSdkChat)) as PageChat;
  const replies = chat.messages.filter((m) => m.role === 'assistant');
  expect(replies.map((m) => m.id)).toEqual([runId]);
  expect(replies[0]!.parts).toEqual(partsOf(segmentsOf(snapshot.messages)));
  const textParts = replies[0]!.parts.filter((p) => p.type === 'text');
  expect(textParts).toHaveLength(1);
  expect(textParts[0]!.text).toBe(serverText(snapshot));
  expect(serverText(snapshot).length).toBeGreaterThan(1000);
  expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
}

const statusOf = (demo: DemoPage) =>
  demo.page.locator('[role="status"]').getAttribute('data-status');

/** What the page's `useChat` holds (`window.__aiSdkChat`). */
type PageChat = {
  messages: { id: string; role: string; parts: ReturnType<typeof partsOf> }[];
  status: string;
};

describe('useChat × ResumableChatTransport in Chromium', () => {
  test('reload three times mid-answer, offline for 5 s: one reply, equal to the server snapshot', async () => {
    const demo = await e2e.openDemo('ai-sdk.html');
    const connection = demo.page.locator('[role="status"]');
    await demo.send('Write a long answer: what does useChat keep across a reload?');
    const run = await demo.run();

    let shown = await demo.waitForText(200);
    const resumedFrom: number[] = [];
    let stored = 0;
    for (let i = 0; i < 3; i++) {
      // Reload only once the page has stored a point past the last one (the record is
      // throttled, and slower on a loaded machine): each resume must then ask for more.
      stored = await demo.waitForStoredOffset(run.runId, stored);
      shown = await demo.assistantText();
      const before = demo.eventsRequestsFor(run.runId).length;
      await demo.page.reload();
      await demo.composer.waitFor();
      // Waited for, not assumed: the reloaded first paint can already hold 20 more
      // characters (the page-hide flush stored them) before the page asks for events.
      const resumed = await pollUntil(
        async () => demo.eventsRequestsFor(run.runId).slice(before),
        (requests) => requests.length > 0,
        { timeoutMs: 10_000 },
        () => `no events request after reload ${i + 1}: ${demo.describe()}`,
      );
      resumedFrom.push(resumed[0]!.after);
      shown = await demo.waitForText(shown.length + 20);
    }

    await e2e.context.setOffline(true);
    // Chromium's offline mode leaves an open stream running: drop it server-side too.
    expect((await chaos(e2e.stack, 'cut', { runId: run.runId })).status).toBe(200);
    await expect
      .poll(() => connection.getAttribute('data-connection'), { timeout: 10_000 })
      .toBe('offline');
    const offlineText = await demo.assistantText();
    await sleep(5_000);
    expect(await demo.assistantText()).toBe(offlineText);
    const before = demo.eventsRequestsFor(run.runId).length;
    await e2e.context.setOffline(false);
    // Three reloads and an offline spell mid-answer: the rest comes at once.
    await e2e.release();

    const snapshot = await waitForRunEnd(e2e.stack, run);
    expect(snapshot.status).toBe('finished');
    await expect
      .poll(() => connection.getAttribute('data-status'), { timeout: 30_000 })
      .toBe('ready');
    resumedFrom.push(demo.eventsRequestsFor(run.runId)[before]!.after);
    await screenshot(demo.page, 'ai-sdk-resumed');

    // Every resume asked for a later offset than the one before; only the first read of
    // the run started at 0.
    const asked = demo.eventsRequestsFor(run.runId).map((r) => r.after);
    expect(
      asked.filter((after) => after === 0),
      demo.describe(),
    ).toHaveLength(1);
    for (let i = 1; i < resumedFrom.length; i++) {
      expect(resumedFrom[i]!, demo.describe()).toBeGreaterThan(resumedFrom[i - 1]!);
    }
    expect(resumedFrom[0]!).toBeGreaterThan(0);

    await expectExactReply(demo, run.runId, snapshot);
    expect((await fetchRun(e2e.stack, run)).lastOffset).toBe(snapshot.lastOffset);
  });

  test('a second tab, idle when the first sends: shows the prompt and the reply live, equal', async () => {
    await e2e.newContext();
    const first = await DemoPage.open(e2e.context, e2e.stack, 'ai-sdk.html');
    const second = await DemoPage.open(e2e.context, e2e.stack, 'ai-sdk.html');
    await first.send('Two tabs, one chat: does the idle one follow?');
    const run = await first.run();
    // The idle tab streams it too (the tabs' channel, then its own resume stream).
    await second.waitForText(300);
    expect(await first.page.evaluate(() => window.__aiSdkChat?.status)).toBe('streaming');
    // Followed live, proven: the rest of the answer comes at once.
    await e2e.release();
    const snapshot = await waitForRunEnd(e2e.stack, run);
    for (const tab of [first, second]) {
      await expect.poll(() => statusOf(tab), { timeout: 30_000 }).toBe('ready');
      await expectExactReply(tab, run.runId, snapshot);
    }
    // The second tab never posted a run of its own.
    expect(second.runPosts).toHaveLength(0);
  });
});
