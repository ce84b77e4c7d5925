import { describe, expect, test } from 'vitest';
import { fetchRun, pollUntil, serverText, sleep, waitForRunEnd } from './demo-page.js';
import { useDemoStack } from './fixture.js';
import { screenshot } from './harness.js';

/**
 * Branches in real Chromium against the real server (SQLite): regenerate an answer twice,
 * go back to the first of the three with the keyboard, reload — the same version is on
 * screen, with its exact text, before the history request has been answered.
 */

// Short, quick replies: three answers and a reload stay well under the test's budget.
const e2e = useDemoStack({ env: { SCRIPTED_TOKENS: '40', SCRIPTED_TPS: '200' }, held: false });

describe('branches in Chromium', () => {
  test('regenerate twice, switch to 1 of 3, reload: the same branch, exact text', async () => {
    const demo = await e2e.openDemo();
    const { page } = demo;
    await demo.send('How do offsets make a stream resumable?');
    await waitForRunEnd(e2e.stack, await demo.run());
    await demo.waitForMessageStatus('complete');

    for (const count of [2, 3]) {
      await demo.answer.hover();
      await demo.answer.getByRole('button', { name: 'Regenerate' }).click();
      await page.getByRole('group', { name: `Version ${count} of ${count}` }).waitFor();
      await waitForRunEnd(e2e.stack, demo.runs[count - 1] ?? (await demo.run()));
      await demo.waitForMessageStatus('complete');
    }
    expect(demo.runs).toHaveLength(3);
    const [first, , third] = demo.runs;
    expect(await demo.assistant.getAttribute('data-message-id')).toBe(`msg-${third!.runId}`);

    // Back to the first answer with the keyboard: ← twice from the focused ‹ button.
    await demo.answer.getByRole('button', { name: 'Previous version' }).focus();
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('group', { name: 'Version 2 of 3' }).waitFor();
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('group', { name: 'Version 1 of 3' }).waitFor();
    const expected = serverText(await fetchRun(e2e.stack, first!));
    // The versions differ (the scripted agent's n-th answer to a prompt uses seed + n).
    expect(serverText(await fetchRun(e2e.stack, third!))).not.toBe(expected);
    expect(await demo.assistant.getAttribute('data-message-id')).toBe(`msg-${first!.runId}`);
    expect(await demo.copiedText()).toBe(expected);
    await screenshot(page, 'branches-1-of-3');

    // Reload with the history request held back: the persisted branch shows first.
    const history = /\/api\/threads\/[^/]+\/messages/;
    let held = 0;
    let answered = false;
    await page.route(history, async (route) => {
      held++;
      await sleep(4000);
      await route.continue().catch(() => {});
      answered = true;
    });
    await page.reload();
    await page.getByRole('group', { name: 'Version 1 of 3' }).waitFor({ timeout: 10_000 });
    expect(answered).toBe(false);
    expect(await demo.assistant.getAttribute('data-message-id')).toBe(`msg-${first!.runId}`);
    expect(await demo.copiedText()).toBe(expected);

    // Once the server has answered, still the first version; nothing was sent again.
    await pollUntil(
      async () => answered,
      (yes) => yes,
      { timeoutMs: 10_000, everyMs: 50 },
      () => 'the held history request was never answered',
    );
    await page.unroute(history);
    await sleep(300);
    expect(held).toBe(1);
    expect(await demo.assistant.getAttribute('data-message-id')).toBe(`msg-${first!.runId}`);
    expect(await page.getByRole('group', { name: 'Version 1 of 3' }).count()).toBe(1);
    expect(demo.runPosts).toHaveLength(3);
  });
});
