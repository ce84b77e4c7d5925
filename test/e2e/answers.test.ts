import { describe, expect, test } from 'vitest';
import {
  chaos,
  type DemoPage,
  fetchRun,
  pollUntil,
  type StartedRun,
  serverText,
  waitForRunEnd,
} from './demo-page.js';
import { useDemoStack } from './fixture.js';
import { screenshot } from './harness.js';

/**
 * Answers that read right (#27), in Chromium against the demo's real server with its
 * showcase reply (reasoning, a `search_docs` call and its result, then the Markdown answer)
 * and its approval prompt, on a desktop and a phone screen: an answer is one turn with one
 * action row under its last part; regenerating an answer that starts with reasoning and a
 * tool call gives ‹ 2 / 2 ›, kept across reloads; each tool state has its own label and
 * colour (a denied or cancelled call is never the green "Done"); a prompt that would cancel
 * an open approval says so before it is sent.
 */

// The showcase at 400 tokens a second: about a second an answer. Unheld: the tests that
// need an answer mid-way slow the stream themselves.
const e2e = useDemoStack({ env: { SCRIPTED_REPLY: 'demo', SCRIPTED_TPS: '400' }, held: false });

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];
const SHOWCASE = 'How does this chat survive a reload?';
const DELETE = 'Delete the old draft (it asks for your approval first)';
const ASKED = 'I can delete notes/old-draft.md for you. It needs your approval.';

// The kit's light theme (styles.css): what each state is drawn in.
const COLOURS = {
  success: 'rgb(21, 128, 61)',
  danger: 'rgb(185, 28, 28)',
  dangerBg: 'rgb(254, 226, 226)',
  accent: 'rgb(37, 99, 235)',
  warningFg: 'rgb(120, 53, 15)',
  warningBg: 'rgb(254, 243, 199)',
  muted: 'rgb(95, 95, 105)',
  surface: 'rgb(244, 244, 245)',
};

async function open(viewport: { width: number; height: number }): Promise<DemoPage> {
  const demo = await e2e.openDemo();
  await demo.page.setViewportSize(viewport);
  return demo;
}

/** The last answer turn's children: message ids, and `actions` for its action row. */
function turnParts(demo: DemoPage): Promise<string[]> {
  return demo.answer.evaluate((turn) =>
    [...turn.children].map((child) =>
      child.classList.contains('rc-message__actions')
        ? 'actions'
        : (child.getAttribute('data-message-id') ?? child.className),
    ),
  );
}

/** What the last turn's action row holds: its badge's text, then its buttons' names. */
function rowContents(demo: DemoPage): Promise<string[]> {
  return demo.answer
    .locator(':scope > .rc-message__actions')
    .evaluate((row) =>
      [...row.querySelectorAll('[data-part="ended"], button')].map(
        (e) => e.getAttribute('aria-label') ?? e.textContent ?? '',
      ),
    );
}

/** The vertical gaps between the last turn's parts, in px. */
function turnGaps(demo: DemoPage): Promise<number[]> {
  return demo.answer.evaluate((turn) => {
    const boxes = [...turn.children].map((c) => c.getBoundingClientRect());
    return boxes.slice(1).map((box, i) => Math.round(box.top - boxes[i]!.bottom));
  });
}

/** A tool call's badge: its text, `data-tool-status`, colour and background. */
async function toolBadge(demo: DemoPage, name: string) {
  const tool = demo.page
    .locator('[data-tool-call-id]')
    .filter({ has: demo.page.locator('.rc-tool__name', { hasText: name }) })
    .last();
  const badge = tool.locator('.rc-badge');
  return {
    status: await tool.getAttribute('data-tool-status'),
    text: await badge.textContent(),
    ...(await badge.evaluate((e) => {
      const style = getComputedStyle(e);
      return { color: style.color, background: style.backgroundColor };
    })),
  };
}

/**
 * Records, in the page, each state a tool call's badge takes as it is drawn (a
 * MutationObserver: no state is missed between two polls); returns a reader of the record.
 */
async function recordToolStates(demo: DemoPage) {
  await demo.page.evaluate(() => {
    type State = { status: string; text: string; color: string; background: string };
    const seen: State[] = [];
    const last = new Map<Element, string>();
    const record = () => {
      for (const tool of document.querySelectorAll('[data-tool-call-id]')) {
        const status = tool.getAttribute('data-tool-status') ?? '';
        if (last.get(tool) === status) continue;
        last.set(tool, status);
        const badge = tool.querySelector('.rc-badge')!;
        const style = getComputedStyle(badge);
        seen.push({
          status,
          text: badge.textContent ?? '',
          color: style.color,
          background: style.backgroundColor,
        });
      }
    };
    new MutationObserver(record).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-tool-status'],
    });
    (window as unknown as { __toolStates: State[] }).__toolStates = seen;
  });
  return () =>
    demo.page.evaluate(() => (window as unknown as { __toolStates: unknown[] }).__toolStates);
}

/** The answer shown under an approval card, once there: its words, outcome and colour. */
async function approvalAnswer(demo: DemoPage) {
  const answer = demo.page.locator('.rc-interrupt-answer[data-interrupt-id]').last();
  await answer.waitFor({ timeout: 10_000 });
  return {
    text: await answer.textContent(),
    outcome: await answer.getAttribute('data-outcome'),
    color: await answer.evaluate((e) => getComputedStyle(e).color),
  };
}

/** Waits until the run has ended on the server and the page shows its turn settled. */
async function settled(demo: DemoPage, run: StartedRun) {
  const snapshot = await waitForRunEnd(e2e.stack, run);
  await demo.answer.getByRole('button', { name: 'Regenerate' }).waitFor({ timeout: 15_000 });
  return snapshot;
}

/** The page's `n`-th run (1-based), once it has started it. */
async function nthRun(demo: DemoPage, n: number): Promise<StartedRun> {
  const runs = await pollUntil(
    async () => demo.runs,
    (all) => all.length >= n,
    { timeoutMs: 15_000 },
    (all) => `${all.length} runs, wanted ${n}: ${demo.describe()}`,
  );
  return runs[n - 1]!;
}

/** Until the last reply reads `text`. */
async function untilReply(demo: DemoPage, text: string) {
  await pollUntil(
    () => demo.assistantText(),
    (reply) => reply === text,
    { timeoutMs: 15_000 },
    (reply) => `the reply is "${reply}", wanted "${text}"; ${demo.describe()}`,
  );
}

/** Until the newest call of `name` has `status`. */
async function untilTool(demo: DemoPage, name: string, status: string) {
  let calls: string[] = [];
  await pollUntil(
    async () => {
      calls = await demo.page
        .locator('[data-tool-call-id]')
        .evaluateAll((all) =>
          all.map(
            (e) => `${e.getAttribute('data-tool-call-id')}:${e.getAttribute('data-tool-status')}`,
          ),
        );
      return toolBadge(demo, name);
    },
    (badge) => badge.status === status,
    { timeoutMs: 15_000 },
    (badge) =>
      `${name} is ${JSON.stringify(badge)}, wanted ${status}; calls ${JSON.stringify(calls)}; ${demo.describe()}`,
  );
}

const approvalCard = (demo: DemoPage) =>
  demo.page.getByRole('region', { name: 'Allow delete_file?' });

/**
 * Asks for the approval again and answers it with `button`: waits for the continuation (the
 * page's `run`-th run) and its `reply`.
 */
async function answerApproval(
  demo: DemoPage,
  button: 'Approve' | 'Deny',
  run: number,
  reply: string,
) {
  await demo.send(DELETE);
  await approvalCard(demo).waitFor({ timeout: 15_000 });
  await demo.page.getByRole('button', { name: button }).click();
  await settled(demo, await nthRun(demo, run));
  await untilReply(demo, reply);
}

describe.each(VIEWPORTS)('answers at $width×$height', (viewport) => {
  const size = `${viewport.width}x${viewport.height}`;

  test('reasoning, a tool call and the text read as one answer with one action row; Regenerate gives ‹ 2 / 2 ›, kept across reloads', async () => {
    const demo = await open(viewport);
    await demo.send(SHOWCASE);
    const first = await demo.run();
    const snapshot = await settled(demo, first);
    const id = first.runId;
    expect(await turnParts(demo)).toEqual([
      `reasoning-${id}`,
      `msg-tools-${id}`,
      `msg-${id}`,
      'actions',
    ]);
    // One action row in the whole transcript, the turn's, under its last part.
    expect(await demo.page.locator('.rc-message__actions').count()).toBe(2);
    expect(await demo.page.locator('[data-role="user"] .rc-message__actions').count()).toBe(1);
    expect(await demo.page.getByRole('button', { name: 'Regenerate' }).count()).toBe(1);
    expect(await rowContents(demo)).toEqual(['Copy message', 'Regenerate']);
    // Spaced as one answer: the turn's gap between every part, nothing more.
    expect(await turnGaps(demo)).toEqual([8, 8, 8]);
    expect(await demo.answer.locator('.rc-reasoning > summary').textContent()).toBe('Reasoning');
    expect(await toolBadge(demo, 'search_docs')).toEqual({
      status: 'done',
      text: 'Done',
      color: COLOURS.success,
      background: COLOURS.surface,
    });
    expect(await demo.copiedText()).toBe(serverText(snapshot));

    await demo.answer.hover();
    await demo.answer.getByRole('button', { name: 'Regenerate' }).click();
    await demo.answer.getByRole('group', { name: 'Version 2 of 2' }).waitFor({ timeout: 15_000 });
    expect(demo.runs).toHaveLength(2);
    const second = demo.runs[1]!;
    await settled(demo, second);
    expect(await turnParts(demo)).toEqual([
      `reasoning-${second.runId}`,
      `msg-tools-${second.runId}`,
      `msg-${second.runId}`,
      'actions',
    ]);
    expect(await rowContents(demo)).toEqual([
      'Previous version',
      'Next version',
      'Copy message',
      'Regenerate',
    ]);
    expect(await demo.answer.locator('[data-part="branch-nav"]').textContent()).toBe('2 / 2');
    expect(await demo.page.getByRole('button', { name: 'Regenerate' }).count()).toBe(1);
    await screenshot(demo.page, `answers-regenerated-${size}`);

    // A reload shows the same version, with its versions.
    await demo.page.reload();
    await demo.answer.getByRole('group', { name: 'Version 2 of 2' }).waitFor({ timeout: 15_000 });
    expect((await turnParts(demo))[0]).toBe(`reasoning-${second.runId}`);

    // Back to the first, then a reload: still the first.
    await demo.answer.getByRole('button', { name: 'Previous version' }).click();
    await demo.answer.getByRole('group', { name: 'Version 1 of 2' }).waitFor({ timeout: 10_000 });
    expect(await turnParts(demo)).toEqual([
      `reasoning-${id}`,
      `msg-tools-${id}`,
      `msg-${id}`,
      'actions',
    ]);
    await demo.page.reload();
    await demo.answer.getByRole('group', { name: 'Version 1 of 2' }).waitFor({ timeout: 15_000 });
    expect((await turnParts(demo))[0]).toBe(`reasoning-${id}`);
    expect(await demo.copiedText()).toBe(serverText(await fetchRun(e2e.stack, first)));
    expect(demo.runPosts).toHaveLength(2);
  });

  test('a tool call running, then failed when the run is lost; a stopped answer: each badge with its label and colour, "Stopped" at the message edge', async () => {
    const demo = await open(viewport);
    const states = await recordToolStates(demo);
    try {
      // Held at a second an event from the tool call's first argument on: the call streams
      // its arguments for five seconds. (Switched by the server at that event: switched when
      // the page showed the reasoning's last words, the nine events to the call's result at
      // 60 ms each had passed by then at load 30, and the call was done, not running.)
      expect(
        (await chaos(e2e.stack, 'slow', { delayMs: 1000, fromEvent: 'TOOL_CALL_ARGS' })).status,
      ).toBe(200);
      await demo.send(SHOWCASE);
      const lost = await demo.run();
      await demo.answer
        .locator('.rc-reasoning__text', { hasText: 'in a table.' })
        .waitFor({ state: 'attached', timeout: 15_000 });
      await demo.page
        .locator('[data-tool-call-id][data-tool-status="running"]')
        .waitFor({ timeout: 10_000 });
      // While the answer is on its way its row has no tools, only what versions there are.
      expect(await demo.answer.locator('[data-part="tools"]').count()).toBe(0);
      // The server dies mid-call: the run ends `agent_lost`, the call failed.
      const ready = e2e.stack.api.nextReady();
      expect((await chaos(e2e.stack, 'restart')).status).toBe(202);
      await ready;
      expect((await waitForRunEnd(e2e.stack, lost)).error?.code).toBe('agent_lost');
      await untilTool(demo, 'search_docs', 'failed');
      await demo.answer.getByRole('button', { name: 'Regenerate' }).waitFor({ timeout: 10_000 });
      // No text came: nothing to copy.
      expect(await rowContents(demo)).toEqual(['Interrupted by an error', 'Regenerate']);
    } finally {
      await chaos(e2e.stack, 'slow', { delayMs: 0 });
    }
    expect(await states()).toEqual([
      {
        status: 'running',
        text: 'Running',
        color: COLOURS.accent,
        background: COLOURS.surface,
      },
      { status: 'failed', text: 'Failed', color: COLOURS.danger, background: COLOURS.dangerBg },
    ]);

    // Stopped while its text streams: the call had returned, "Stopped" heads the row.
    await chaos(e2e.stack, 'slow', { delayMs: 20 });
    try {
      await demo.send('Again, please');
      await demo.waitForText(60);
      await demo.page.getByRole('button', { name: 'Stop', exact: true }).click();
      await demo.answer.getByRole('button', { name: 'Regenerate' }).waitFor({ timeout: 10_000 });
    } finally {
      await chaos(e2e.stack, 'slow', { delayMs: 0 });
    }
    expect(await rowContents(demo)).toEqual(['Stopped', 'Copy message', 'Regenerate']);
    const [badgeX, turnX] = await Promise.all([
      demo.answer.locator('[data-part="ended"]').evaluate((e) => e.getBoundingClientRect().left),
      demo.answer.evaluate((e) => e.getBoundingClientRect().left),
    ]);
    expect(badgeX).toBe(turnX);
    expect(await demo.page.locator('[data-part="ended"]').count()).toBe(2);
    expect((await states()).slice(2)).toEqual([
      {
        status: 'running',
        text: 'Running',
        color: COLOURS.accent,
        background: COLOURS.surface,
      },
      { status: 'done', text: 'Done', color: COLOURS.success, background: COLOURS.surface },
    ]);
    await screenshot(demo.page, `answers-stopped-${size}`);
  });

  test('an approval: waiting (amber), cancelled by a new prompt after a hint, denied (red), approved then done (green) — never "Done" for a call that did not run', async () => {
    const demo = await open(viewport);
    const hint = demo.page.locator('[data-part="cancels-interrupts"]');

    await demo.send(DELETE);
    await approvalCard(demo).waitFor({ timeout: 15_000 });
    expect(await toolBadge(demo, 'delete_file')).toEqual({
      status: 'awaiting_approval',
      text: 'Waiting for approval',
      color: COLOURS.warningFg,
      background: COLOURS.warningBg,
    });
    // The card, then the turn's one action row under it.
    const asking = (await demo.run()).runId;
    expect(await turnParts(demo)).toEqual([`msg-${asking}`, `msg-tools-${asking}`, 'actions']);
    expect(await demo.answer.locator(':scope > :last-child').getAttribute('class')).toBe(
      'rc-message__actions',
    );
    expect(await demo.page.getByRole('button', { name: 'Regenerate' }).count()).toBe(1);

    // Typing a prompt: the hint says what sending it does, before it is sent.
    expect(await hint.count()).toBe(0);
    await demo.composer.fill('Never mind, keep it');
    expect(await hint.textContent()).toBe(
      'Sending this cancels the request above: answer it first to keep it.',
    );
    await demo.page.getByRole('button', { name: 'Send', exact: true }).click();
    expect(await hint.count()).toBe(0);
    await settled(demo, await nthRun(demo, 2));
    await untilTool(demo, 'delete_file', 'cancelled');
    expect(await toolBadge(demo, 'delete_file')).toEqual({
      status: 'cancelled',
      text: 'Cancelled',
      color: COLOURS.muted,
      background: COLOURS.surface,
    });
    expect(await approvalAnswer(demo)).toEqual({
      text: 'Cancelled',
      outcome: 'cancelled',
      color: COLOURS.muted,
    });

    // Denied: red, not the green "Done" its continuation's result would have given it.
    await answerApproval(demo, 'Deny', 4, 'I did not delete notes/old-draft.md: you denied it.');
    expect(await toolBadge(demo, 'delete_file')).toEqual({
      status: 'denied',
      text: 'Denied',
      color: COLOURS.danger,
      background: COLOURS.surface,
    });
    expect(await approvalAnswer(demo)).toEqual({
      text: 'Denied',
      outcome: 'denied',
      color: COLOURS.danger,
    });
    // The continuation is part of the same answer: one turn, one row, after its text.
    expect((await turnParts(demo)).at(-1)).toBe('actions');
    expect(await demo.answer.locator('.rc-message__actions').count()).toBe(1);

    // Approved: the call runs, and only then is it "Done".
    await answerApproval(demo, 'Approve', 6, 'Approved: I deleted notes/old-draft.md.');
    expect(await toolBadge(demo, 'delete_file')).toEqual({
      status: 'done',
      text: 'Done',
      color: COLOURS.success,
      background: COLOURS.surface,
    });
    expect(await approvalAnswer(demo)).toEqual({
      text: 'Approved',
      outcome: 'approved',
      color: COLOURS.success,
    });
    expect(await demo.copiedText()).toBe(`${ASKED}\n\nApproved: I deleted notes/old-draft.md.`);
    await screenshot(demo.page, `answers-approved-${size}`);
  });
});

describe.each(VIEWPORTS)('the conversation list at $width×$height', (viewport) => {
  // Under the 60 characters a first prompt's title keeps, wider than the list on both screens.
  const TITLE = 'Offsets, reloads and the resumable stream protocol, in short';

  test('titles take the list’s width, cut with an ellipsis, whole on hover and keyboard focus; a new conversation is listed from its first prompt; one Tab stop each, arrows inside', async () => {
    const demo = await open(viewport);
    const { page } = demo;
    const phone = viewport.width < 600;
    // On a phone the list is a drawer: opened to look, closed (Esc) to type.
    const showList = async () => {
      const chats = page.getByRole('button', { name: 'Chats' });
      if (phone && (await chats.getAttribute('aria-expanded')) !== 'true') await chats.click();
    };
    const hideList = async () => {
      if (
        phone &&
        (await page.getByRole('button', { name: 'Chats' }).getAttribute('aria-expanded')) === 'true'
      ) {
        await page.keyboard.press('Escape');
      }
    };
    const titles = () => page.locator('.rc-threads__open').allTextContents();
    const focused = () =>
      page.evaluate(
        () =>
          document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent,
      );
    const ask = async (prompt: string) => {
      await hideList();
      const before = demo.runs.length;
      await demo.send(prompt);
      await settled(demo, await nthRun(demo, before + 1));
      await showList();
    };

    // The first visit's conversation is a draft: not listed until its first prompt.
    await showList();
    expect(await titles()).toEqual([]);
    await ask(TITLE);
    expect(await titles()).toEqual([TITLE]);

    const title = page.getByRole('button', { name: TITLE, exact: true });
    const fit = () =>
      title.evaluate((button) => {
        const style = getComputedStyle(button);
        return {
          cut: button.scrollWidth > button.clientWidth,
          overflow: style.textOverflow,
          // The title's share of its row: all of it (Rename and Delete are out of the row).
          width: Math.round(button.getBoundingClientRect().width),
          row: Math.round(button.parentElement!.getBoundingClientRect().width),
          height: Math.round(button.getBoundingClientRect().height),
          tooltip: button.getAttribute('title'),
        };
      });
    const cut = await fit();
    expect(cut).toEqual({
      cut: true,
      overflow: 'ellipsis',
      width: cut.row,
      row: cut.row,
      height: cut.height,
      tooltip: TITLE,
    });

    // Tab from "New conversation": the title, whole while focused; the next Tab leaves the list.
    await page.getByRole('button', { name: 'New conversation' }).focus();
    await page.keyboard.press('Tab');
    expect(await focused()).toBe(TITLE);
    const whole = await fit();
    expect(whole.cut).toBe(false);
    // Wrapped onto more lines: taller than the one line it was cut to.
    expect(whole.height).toBeGreaterThan(cut.height);
    await page.keyboard.press('ArrowRight');
    expect(await focused()).toBe(`Rename ${TITLE}`);
    await page.keyboard.press('ArrowRight');
    expect(await focused()).toBe(`Delete ${TITLE}`);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    expect(await focused()).toBe(TITLE);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Open this conversation in a second tab ↗');

    // A new conversation: shown, empty, not listed; listed from its first prompt.
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByText('Send a message to start the conversation.').waitFor({ timeout: 10_000 });
    await showList();
    expect(await titles()).toEqual([TITLE]);
    await page.getByRole('button', { name: 'New conversation' }).click();
    await showList();
    expect(await titles()).toEqual([TITLE]);
    await ask('Second');
    expect(await titles()).toEqual(['Second', TITLE]);
    await page.getByRole('button', { name: 'New conversation' }).focus();
    const stops: (string | null | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Tab');
      stops.push(await focused());
    }
    expect(stops).toEqual(['Second', TITLE, 'Open this conversation in a second tab ↗']);
    await page.getByRole('button', { name: 'Second', exact: true }).focus();
    await page.keyboard.press('ArrowDown');
    expect(await focused()).toBe(TITLE);
    await screenshot(page, `conversations-${viewport.width}x${viewport.height}`);
  });
});

describe.each(VIEWPORTS)('the AI SDK page at $width×$height', (viewport) => {
  test('linked from the demo, built with it, it draws useChat’s reply with the kit’s parts: reasoning, the tool card, Markdown', async () => {
    const demo = await open(viewport);
    const { page } = demo;
    if (viewport.width < 600) await page.getByRole('button', { name: 'Chats' }).click();
    await page.getByRole('link', { name: 'The same server with the AI SDK’s useChat →' }).click();
    await page.waitForURL(/\/ai-sdk\.html$/);
    await demo.composer.waitFor({ timeout: 15_000 });
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('useChat × Resumable');

    await demo.send(SHOWCASE);
    const run = await demo.run();
    const snapshot = await waitForRunEnd(e2e.stack, run);
    await expect
      .poll(() => page.locator('[role="status"]').getAttribute('data-status'), { timeout: 15_000 })
      .toBe('ready');
    // One answer: reasoning (folded, its text kept), the tool card, the Markdown.
    const parts = await demo.answer.evaluate((turn) =>
      [...turn.children].map((child) =>
        child.classList.contains('rc-message__actions')
          ? 'actions'
          : child.getAttribute('data-role'),
      ),
    );
    expect(parts).toEqual(['reasoning', 'assistant', 'assistant', 'actions']);
    expect(await demo.answer.locator('.rc-reasoning > summary').textContent()).toBe('Reasoning');
    expect(await demo.answer.locator('.rc-reasoning__text').textContent()).toBe(
      snapshot.messages.find((m) => m.role === 'reasoning')!.content,
    );
    expect(await toolBadge(demo, 'search_docs')).toEqual({
      status: 'done',
      text: 'Done',
      color: COLOURS.success,
      background: COLOURS.surface,
    });
    expect(
      await demo.answer.locator('[data-tool-call-id] [data-part="arguments"]').textContent(),
    ).toBe('{\n  "query": "resume after reload",\n  "limit": 2\n}');
    // Markdown, not its source: the heading an <h2>, the table a table in its box, code a block.
    const text = demo.answer.locator('[data-role="assistant"] [data-part="text"]').last();
    expect(await text.locator('h2').textContent()).toBe('How this chat survives a reload');
    expect(await text.locator('.rc-table-scroll table tr').count()).toBe(4);
    expect(await text.locator('pre code').count()).toBe(2);
    expect(await text.textContent()).not.toContain('## ');
    expect(await text.textContent()).not.toContain('| what breaks');
    expect(await text.getAttribute('data-text')).toBe(serverText(snapshot));
    expect(await demo.copiedText()).toBe(serverText(snapshot));
    await screenshot(page, `ai-sdk-parts-${viewport.width}x${viewport.height}`);
  });
});
