import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_LABELS as LABELS } from '@resumable/ui';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import {
  DemoPage,
  fetchRun,
  pollUntil,
  serverText,
  sleep,
  waitForRunEnd,
} from '../e2e/demo-page.js';
import { launchChromium, newContext, screenshot } from '../e2e/harness.js';
import { awaitBuild, EXAMPLE_DIR } from '../shared-builds.js';
import { type NextApp, startNextApp } from './next-app.js';

/**
 * The Next.js example (`examples/nextjs`) built with `next build` and run with `next start`,
 * in real Chromium: on both of its pages — `<ResumableChat>` rendered straight from a
 * Server Component, and the AI SDK's `useChat` on the resumable transport — a reload
 * mid-answer resumes after its stored offset, an offline spell of 5 s loses and doubles
 * nothing, a second tab follows the answer live, and Stop ends it; each page ends with the
 * text the server's `GET /api/runs/:id` holds, character for character.
 */

/** 800 tokens at 40 a second: a 20-second answer, time to break it twice on a busy machine. */
const SCRIPT = { tokens: 800, tokensPerSecond: 40 };
const PROMPT = 'Write a long answer: does a Next.js page resume it?';

let app: NextApp | undefined;
let browser: Browser | undefined;
const opened: BrowserContext[] = [];

beforeAll(async () => {
  // Built beside the other suites since the run began (global-setup.ts).
  await awaitBuild(inject('sharedBuilds'), 'nextjs', 8 * 60_000);
  const [started, launched] = await Promise.allSettled([
    startNextApp({ script: SCRIPT }),
    launchChromium(),
  ]);
  if (started.status === 'fulfilled') app = started.value;
  if (launched.status === 'fulfilled') browser = launched.value;
  for (const result of [started, launched]) {
    if (result.status === 'rejected') throw result.reason;
  }
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((context) => context.close()));
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

function theApp(): NextApp {
  if (!app) throw new Error('the Next.js app is not started');
  return app;
}

async function freshContext(): Promise<BrowserContext> {
  if (!browser) throw new Error('Chromium is not started');
  const context = await newContext(browser);
  opened.push(context);
  return context;
}

/** One of the example's pages, and how a test reads what it shows. */
interface ExamplePage {
  name: string;
  path: string;
  /** The reply's raw text as the page holds it. */
  replyText(chat: DemoPage): Promise<string>;
  /** Whether the page says it is offline. */
  saysOffline(chat: DemoPage): Promise<boolean>;
  /** Waits until the page shows the reply over: complete, or stopped. */
  waitForEnd(chat: DemoPage, how: 'complete' | 'stopped'): Promise<void>;
}

/** The useChat page's status line: `useChat`'s status and the transport's connection phase. */
const useChatStatus = (chat: DemoPage) => chat.page.locator('form [role="status"]');

const PAGES: ExamplePage[] = [
  {
    name: '<ResumableChat> in a Server Component page (/)',
    path: '',
    // What its "Copy message" button copies: the Markdown source of what is on screen.
    replyText: (chat) => chat.copiedText(),
    saysOffline: async (chat) => (await chat.status.textContent()) === LABELS.offline(true),
    waitForEnd: (chat, how) => chat.waitForMessageStatus(how),
  },
  {
    name: "the AI SDK's useChat on the resumable transport (/use-chat)",
    path: 'use-chat',
    // Its text parts are rendered as they are (white-space: pre-wrap).
    replyText: (chat) => chat.assistantText(),
    saysOffline: async (chat) =>
      (await useChatStatus(chat).getAttribute('data-connection')) === 'offline',
    waitForEnd: async (chat) => {
      await expect
        .poll(() => useChatStatus(chat).getAttribute('data-status'), { timeout: 30_000 })
        .toBe('ready');
    },
  },
];

/** One reply, one text, equal to the server's: a resume that replayed or doubled fails here. */
async function expectReplyEqualsServer(example: ExamplePage, chat: DemoPage, text: string) {
  expect(await chat.page.locator('[data-role="assistant"]').count(), chat.describe()).toBe(1);
  expect(await chat.page.locator('[data-role="assistant"] [data-part="text"]').count()).toBe(1);
  expect(await example.replyText(chat), chat.describe()).toBe(text);
}

test('the Server Component page is rendered on the server with the chat in it', async () => {
  const response = await fetch(`${theApp().api.origin}/`);
  expect(response.status).toBe(200);
  const html = await response.text();
  // The composer is in the server's HTML: <ResumableChat> rendered there as a client
  // component, from the Server Component page that imports it.
  expect(html).toContain('aria-label="Message"');
});

/**
 * Words only @resumable/devtools holds: the key its button remembers the panel by, the
 * button's label, a heading of the panel. Not one is in the app's production build.
 */
const DEVTOOLS_MARKS = ['resumable-devtools:open', 'Open the Resumable devtools', 'Last after='];

/** Every file of the build under `dir` (`.next/static`, `.next/server`) holding one of `marks`. */
function filesHolding(dir: string, marks: string[]): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(?:js|html|rsc)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => {
      const text = readFileSync(file, 'utf8');
      return marks.some((mark) => text.includes(mark));
    });
}

test('the layout renders <ResumableDevtools />, and the production build holds none of the devtools (issue #29)', async () => {
  // The production export condition resolves @resumable/devtools to its stand-ins: nothing
  // of the recorder, the button or the panel in any chunk the browser or the server loads.
  const built = join(EXAMPLE_DIR, '.next');
  expect(filesHolding(join(built, 'static'), DEVTOOLS_MARKS)).toEqual([]);
  expect(filesHolding(join(built, 'server'), DEVTOOLS_MARKS)).toEqual([]);
  const context = await freshContext();
  const chat = await DemoPage.open(context, theApp(), '');
  // Hydrated and its effects run (the real button appears after the mount).
  await chat.page.waitForLoadState('networkidle', { timeout: 15_000 });
  expect(await chat.page.getByRole('button', { name: 'Open the Resumable devtools' }).count()).toBe(
    0,
  );
});

describe.each(PAGES)('$name', (example) => {
  test('reload mid-answer, then offline for 5 s: resumes after its offset each time, ends equal to the server', async () => {
    const context = await freshContext();
    const chat = await DemoPage.open(context, theApp(), example.path);
    await chat.send(PROMPT);
    const run = await chat.run();
    await chat.waitForText(100);

    // Reload once the page has stored a point past the start: it must resume after it.
    const stored = await chat.waitForStoredOffset(run.runId, 0);
    expect((await fetchRun(theApp(), run)).status, 'ended before the reload').toBe('running');
    let requests = chat.eventsRequestsFor(run.runId).length;
    await chat.page.reload();
    await chat.composer.waitFor();
    const [reloaded] = await pollUntil(
      async () => chat.eventsRequestsFor(run.runId).slice(requests),
      (asked) => asked.length > 0,
      { timeoutMs: 10_000 },
      () => `no events request after the reload: ${chat.describe()}`,
    );
    expect(reloaded!.after, chat.describe()).toBeGreaterThan(0);
    expect(reloaded!.after, chat.describe()).toBeGreaterThanOrEqual(stored);
    // Live again: events after the resume point arrive and are stored (the reloaded first
    // paint alone can show more text than before: the page-hide flush stored it).
    await chat.waitForStoredOffset(run.runId, reloaded!.after);

    // Offline, and the open stream dropped (Chromium's offline mode leaves it open).
    await context.setOffline(true);
    expect(theApp().cut(), 'connections open to the app').toBeGreaterThan(0);
    await expect.poll(() => example.saysOffline(chat), { timeout: 10_000 }).toBe(true);
    const offlineText = await chat.assistantText();
    expect((await fetchRun(theApp(), run)).status, 'ended before the offline spell').toBe(
      'running',
    );
    await screenshot(chat.page, `nextjs-${example.path || 'resumable-chat'}-offline`);
    await sleep(5_000);
    expect(await chat.assistantText()).toBe(offlineText);
    requests = chat.eventsRequestsFor(run.runId).length;
    await context.setOffline(false);
    const [back] = await pollUntil(
      async () => chat.eventsRequestsFor(run.runId).slice(requests),
      (asked) => asked.length > 0,
      { timeoutMs: 15_000 },
      () => `no events request after the offline spell: ${chat.describe()}`,
    );
    expect(back!.after, chat.describe()).toBeGreaterThan(reloaded!.after);

    const snapshot = await waitForRunEnd(theApp(), run, 60_000);
    expect(snapshot.status).toBe('finished');
    await example.waitForEnd(chat, 'complete');
    await expectReplyEqualsServer(example, chat, serverText(snapshot));
    expect(serverText(snapshot).length).toBeGreaterThan(2_000);
    // No read of the run started over: at most its very first one is from 0.
    const asked = chat.eventsRequestsFor(run.runId).map((request) => request.after);
    expect(asked.slice(1), chat.describe()).not.toContain(0);
    await screenshot(chat.page, `nextjs-${example.path || 'resumable-chat'}-resumed`);
  });

  test('a second tab follows the answer live; Stop in the first ends it in both, equal to the server', async () => {
    const context = await freshContext();
    const first = await DemoPage.open(context, theApp(), example.path);
    await first.send(PROMPT);
    const run = await first.run();
    await first.waitForText(40);

    const second = await DemoPage.open(context, theApp(), example.path);
    // Live: the second tab's reply grows while the answer goes on.
    const joined = await second.waitForText(1);
    await second.waitForText(joined.length + 40);
    expect((await fetchRun(theApp(), run)).status, 'ended before Stop').toBe('running');

    await first.page.getByRole('button', { name: 'Stop', exact: true }).click();
    const snapshot = await waitForRunEnd(theApp(), run);
    expect(snapshot.status).toBe('cancelled');
    const text = serverText(snapshot);
    for (const tab of [first, second]) {
      await example.waitForEnd(tab, 'stopped');
      await expectReplyEqualsServer(example, tab, text);
    }
    // Following never starts a run.
    expect(second.runPosts).toHaveLength(0);
  });
});
