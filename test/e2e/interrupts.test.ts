import { describe, expect, test } from 'vitest';
import { DemoPage, pollUntil } from './demo-page.js';
import { useDemoStack } from './fixture.js';

/**
 * Human in the loop (#13) in Chromium against the demo's real server: the demo's
 * "delete" prompt asks for an approval; the card survives a reload, is answered in
 * another tab, and two tabs approving at once make one continuation run.
 */

// The demo reply at its own pace (50 a second), unheld: nothing here is broken mid-answer.
const e2e = useDemoStack({ env: { SCRIPTED_REPLY: 'demo', SCRIPTED_TPS: '50' }, held: false });
const PROMPT = 'Delete the old draft (it asks for your approval first)';
const ASKED = 'I can delete notes/old-draft.md for you. It needs your approval.';
const APPROVED = 'Approved: I deleted notes/old-draft.md.';

const card = (demo: DemoPage) => demo.page.getByRole('region', { name: 'Allow delete_file?' });
const answer = (demo: DemoPage) => demo.page.locator('.rc-interrupt-answer[data-interrupt-id]');

/** The last reply's text once it reads `text` (bounded wait). */
async function waitForReply(demo: DemoPage, text: string, timeoutMs = 15_000): Promise<void> {
  await pollUntil(
    () => demo.assistantText(),
    (reply) => reply === text,
    { timeoutMs },
    (reply) => `reply is "${reply}", wanted "${text}"; ${demo.describe()}`,
  );
}

async function askApproval(): Promise<{ one: DemoPage; two: () => Promise<DemoPage> }> {
  const one = await e2e.openDemo();
  await one.send(PROMPT);
  await card(one).waitFor({ timeout: 15_000 });
  const run = await one.run();
  const two = () => DemoPage.open(one.page.context(), e2e.stack, `?thread=${run.threadId}`);
  return { one, two };
}

/** Every reply text of the transcript, in order. */
function texts(demo: DemoPage): Promise<string[]> {
  return demo.page.locator('[data-role="assistant"] [data-part="text"]').allTextContents();
}

async function threadRuns(demo: DemoPage): Promise<string[]> {
  const run = await demo.run();
  const response = await fetch(`${e2e.stack.api.origin}/api/threads/${run.threadId}`, {
    headers: { authorization: `Bearer ${run.token}` },
  });
  const body = (await response.json()) as { runs: { runId: string }[] };
  return body.runs.map((r) => r.runId);
}

describe('approvals in Chromium', () => {
  test('asked → reload → still there → approved in a second tab → answered in the first, the continuation in both', async () => {
    const { one, two: openTwo } = await askApproval();
    expect(await texts(one)).toEqual([ASKED]);
    await one.page.reload();
    await card(one).waitFor({ timeout: 10_000 });
    // Focus went to the card: the person's next key press answers it.
    expect(await card(one).evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await card(one).locator('pre').textContent()).toBe(
      '{\n  "path": "notes/old-draft.md"\n}',
    );

    const two = await openTwo();
    await card(two).waitFor({ timeout: 10_000 });
    await two.page.getByRole('button', { name: 'Approve' }).click();
    await waitForReply(two, APPROVED);
    await waitForReply(one, APPROVED);
    expect(await texts(one)).toEqual([ASKED, APPROVED]);
    expect(await texts(two)).toEqual([ASKED, APPROVED]);
    // The server shares the answer: the first tab says what it was, and where it was given.
    await answer(one).filter({ hasText: 'Approved (in another tab)' }).waitFor({ timeout: 10_000 });
    expect(await answer(two).textContent()).toBe('Approved');
    expect(await card(one).count()).toBe(0);
    expect(await threadRuns(one)).toHaveLength(2);
  });

  test('approve in two tabs at once: exactly one continuation run', async () => {
    const { one, two: openTwo } = await askApproval();
    const two = await openTwo();
    await card(two).waitFor({ timeout: 10_000 });
    await card(one).waitFor({ timeout: 10_000 });
    // Both tabs click in the same moment, in the page (a Playwright click waits for the
    // button, which is gone once the other tab's answer arrived: that is the point).
    const approve = (demo: DemoPage) =>
      demo.page.evaluate(() => {
        const buttons = [...document.querySelectorAll<HTMLButtonElement>('button')];
        buttons.find((b) => b.textContent === 'Approve')?.click();
      });
    await Promise.all([approve(one), approve(two)]);
    await waitForReply(one, APPROVED);
    await waitForReply(two, APPROVED);
    // A tab that hears of the other's answer on the thread stream before its own click goes
    // out sends nothing, so one or two POSTs carry `resume`; either way
    // the server started exactly one continuation run.
    const resumes = [...one.runPosts, ...two.runPosts].filter((r) =>
      r.postData()?.includes('"resume"'),
    );
    expect([1, 2]).toContain(resumes.length);
    const runs = await threadRuns(one);
    expect(runs).toHaveLength(2);
    expect(
      await one.page.locator('[data-role="assistant"]').last().getAttribute('data-message-id'),
    ).toBe(
      await two.page.locator('[data-role="assistant"]').last().getAttribute('data-message-id'),
    );
  });

  test('the interrupts chunk failing to load (the page went offline first): the card comes once the page is back online', async () => {
    const { one } = await askApproval();
    const run = await one.run();
    // A second tab opens the thread while the chunk that holds the interrupts cannot be
    // fetched, as a page that lost the network right after its first paint (the first tab
    // has the chunk already).
    const context = one.page.context();
    const chunk = /\/interrupts-[\w-]+\.js$/;
    let refused = 0;
    await context.route(chunk, (route) => {
      refused++;
      return route.abort('internetdisconnected');
    });
    const two = await DemoPage.open(context, e2e.stack, `?thread=${run.threadId}`);
    await pollUntil(
      async () => refused,
      (n) => n > 0,
      { timeoutMs: 10_000 },
      (n) => `the interrupts chunk was asked for ${n} times; ${two.describe()}`,
    );
    await two.page.getByText(ASKED).waitFor({ timeout: 10_000 });
    expect(await card(two).count()).toBe(0);
    // Back online: the chunk is fetched again and the question is there to answer.
    await context.unroute(chunk);
    await context.setOffline(true);
    await context.setOffline(false);
    await card(two).waitFor({ timeout: 10_000 });
    await two.page.getByRole('button', { name: 'Approve' }).click();
    await waitForReply(two, APPROVED);
    await waitForReply(one, APPROVED);
    expect(await texts(two)).toEqual([ASKED, APPROVED]);
  });
});
