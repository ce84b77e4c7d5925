import { messageText, type RunSnapshot } from '@resumable/protocol';
import type { BrowserContext, Locator, Page, Request } from 'playwright-core';
import type { Stack } from './harness.js';

/**
 * The demo as a test sees it: a page plus what crossed its wire (the runs it started, with
 * their tokens, and every events request with its resume point), and the server's truth
 * about a run, fetched straight from the API server. The Next.js example's tests
 * (test/nextjs) drive their pages with it too: the same chat, the same routes.
 */

/** What a page test needs of the app: where to open it, and its API server's own origin. */
export interface AppUnderTest {
  /** The app, e.g. `http://127.0.0.1:41234` (its API is under `/api`). */
  appUrl: string;
  /** The API server itself, bypassing the browser's path (for the test's own checks). */
  api: { origin: string };
}

export interface StartedRun {
  runId: string;
  threadId: string;
  token: string;
}

export interface EventsRequest {
  runId: string;
  /** The resume point asked for (`after`, else `Last-Event-ID`, else 0). */
  after: number;
  at: number;
}

const EVENTS_PATH = /\/api\/runs\/([^/]+)\/events$/;

export class DemoPage {
  readonly runs: StartedRun[] = [];
  readonly eventsRequests: EventsRequest[] = [];
  readonly runPosts: Request[] = [];
  /** The page's console warnings and errors, for failure messages. */
  readonly warnings: string[] = [];
  /** Responses that were not OK (method, path, status), for failure messages. */
  readonly failures: string[] = [];
  /** Every API response (method, path and query, status, ms since open), for failure messages. */
  readonly log: string[] = [];
  private readonly openedAt = Date.now();

  private constructor(
    readonly page: Page,
    readonly stack: AppUnderTest,
  ) {
    page.on('console', (message) => {
      if (message.type() === 'warning' || message.type() === 'error') {
        this.warnings.push(`${message.type()}: ${message.text()}`);
      }
    });
    page.on('request', (request) => {
      const url = new URL(request.url());
      const events = EVENTS_PATH.exec(url.pathname);
      if (events && request.method() === 'GET') {
        const after = url.searchParams.get('after') ?? request.headers()['last-event-id'] ?? '0';
        this.eventsRequests.push({ runId: events[1]!, after: Number(after), at: Date.now() });
      }
      if (url.pathname === '/api/runs' && request.method() === 'POST') this.runPosts.push(request);
    });
    page.on('response', async (response) => {
      const url = new URL(response.url());
      if (url.pathname.startsWith('/api/') && this.log.length < 200) {
        const method = response.request().method();
        this.log.push(
          `${Date.now() - this.openedAt}ms ${method} ${url.pathname}${url.search} ${response.status()}`,
        );
      }
      if (!response.ok() && this.failures.length < 50) {
        this.failures.push(`${response.request().method()} ${url.pathname} ${response.status()}`);
      }
      if (url.pathname !== '/api/runs' || response.request().method() !== 'POST') return;
      if (!response.ok()) return;
      const body = (await response.json().catch(() => null)) as StartedRun | null;
      if (body?.runId && body.token && !this.runs.some((r) => r.runId === body.runId)) {
        this.runs.push({ runId: body.runId, threadId: body.threadId, token: body.token });
      }
    });
  }

  static async open(context: BrowserContext, stack: AppUnderTest, query = ''): Promise<DemoPage> {
    const page = await context.newPage();
    const demo = new DemoPage(page, stack);
    await page.goto(`${stack.appUrl}/${query}`);
    await demo.composer.waitFor({ timeout: 15_000 });
    return demo;
  }

  get composer(): Locator {
    return this.page.getByRole('textbox', { name: 'Message' });
  }

  get status(): Locator {
    // The chat's connection line (the page has other live regions).
    return this.page.locator('.rc-connection [role="status"]');
  }

  /** The text of the chat's `role="alert"` notice (without its Retry button), or ''. */
  async alertText(): Promise<string> {
    const alert = this.page.locator('.rc-connection [role="alert"] > span');
    return (await alert.count()) === 0 ? '' : alert.textContent().then((t) => t ?? '');
  }

  /** The last assistant message element (`data-role`, `data-status` per the UI contract). */
  get assistant(): Locator {
    return this.page.locator('[data-role="assistant"]').last();
  }

  /**
   * The last answer turn: the messages after the last prompt (reasoning, tool calls, text)
   * and the turn's one action row (Copy message, Regenerate, ‹ n / m ›).
   */
  get answer(): Locator {
    return this.page.locator('.rc-turn').last();
  }

  async send(text: string) {
    await this.composer.fill(text);
    await this.page.getByRole('button', { name: 'Send', exact: true }).click();
  }

  /** The run this page started last (its POST answer carries the token). */
  async run(timeoutMs = 10_000): Promise<StartedRun> {
    await pollUntil(
      async () => this.runs.length,
      (n) => n > 0,
      { timeoutMs, everyMs: 50 },
      () => `no run was started: ${this.describe()}`,
    );
    return this.runs[this.runs.length - 1]!;
  }

  /** The visible text of the last assistant reply. */
  async assistantText(): Promise<string> {
    const text = this.assistant.locator('[data-part="text"]').first();
    if ((await text.count()) === 0) return '';
    return (await text.textContent()) ?? '';
  }

  /**
   * The reply's raw text, as the page holds it: what its "Copy message" button puts on the
   * clipboard (the same string the Markdown on screen is rendered from; an answer in several
   * messages, the text of each, blank-line separated).
   */
  async copiedText(): Promise<string> {
    await this.page.evaluate(() => navigator.clipboard.writeText(''));
    await this.answer.getByRole('button', { name: /^(Copy message|Copied)$/ }).click();
    return this.page.evaluate(() => navigator.clipboard.readText());
  }

  /** Waits until the reply shows at least `chars` characters. */
  async waitForText(chars: number, timeoutMs = 20_000): Promise<string> {
    return pollUntil(
      () => this.assistantText(),
      (text) => text.length >= chars,
      { timeoutMs },
      (text) => `reply has ${text.length} chars after ${timeoutMs} ms, wanted ${chars}`,
    );
  }

  /**
   * Waits until the page's IndexedDB holds a run record for `runId` past `min` (the record
   * is written at most 4 times a second, and later on a loaded machine): a reload before it
   * would rightly start from what was stored before.
   */
  async waitForStoredOffset(runId: string, min: number, timeoutMs = 10_000): Promise<number> {
    return pollUntil(
      () => this.page.evaluate(storedOffsetIn, runId),
      (offset) => offset > min,
      { timeoutMs },
      (offset) => `stored offset ${offset} after ${timeoutMs} ms, wanted > ${min}`,
    );
  }

  /**
   * Waits until the last reply has the given `data-status`. The last reply itself: the last
   * of the replies with that status was an earlier one from the second answer on (a test
   * stopping its second answer went on at once, before that answer had ended).
   */
  async waitForMessageStatus(status: string, timeoutMs = 30_000) {
    await this.page.waitForFunction(
      (status) =>
        [...document.querySelectorAll('[data-role="assistant"]')]
          .at(-1)
          ?.getAttribute('data-status') === status,
      status,
      { timeout: timeoutMs },
    );
  }

  /** What a failure message needs to tell what the page did. */
  describe(): string {
    const requests = this.eventsRequests.map((r) => `${r.runId.slice(0, 8)} after=${r.after}`);
    return (
      `events requests: [${requests.join(', ')}]; console: [${this.warnings.join(' | ')}]; ` +
      `not OK: [${this.failures.join(', ')}]; API: [${this.log.join(', ')}]`
    );
  }

  eventsRequestsFor(runId: string): EventsRequest[] {
    return this.eventsRequests.filter((r) => r.runId === runId);
  }
}

/** In the page: the highest offset of a stored run record for `runId` (the kit's default store). */
function storedOffsetIn(runId: string): Promise<number> {
  return new Promise((resolve) => {
    const open = indexedDB.open('resumable');
    open.onerror = () => resolve(-1);
    open.onsuccess = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains('records')) return resolve(-1);
      const all = db.transaction('records').objectStore('records').getAll();
      all.onerror = () => resolve(-1);
      all.onsuccess = () => {
        const records = all.result as { runId?: unknown; offset?: unknown }[];
        const offsets = records
          .filter((r) => r?.runId === runId && typeof r.offset === 'number')
          .map((r) => r.offset as number);
        db.close();
        resolve(Math.max(-1, ...offsets));
      };
    };
  });
}

/** `GET /api/runs/:id` on the API server: the server's folded truth about the run. */
export async function fetchRun(stack: AppUnderTest, run: StartedRun): Promise<RunSnapshot> {
  const response = await fetch(`${stack.api.origin}/api/runs/${run.runId}`, {
    headers: { authorization: `Bearer ${run.token}` },
  });
  if (response.status !== 200) {
    throw new Error(`GET /runs/${run.runId} answered ${response.status}: ${await response.text()}`);
  }
  return (await response.json()) as RunSnapshot;
}

/** Polls the server until the run has ended; returns its final snapshot. */
export async function waitForRunEnd(
  stack: AppUnderTest,
  run: StartedRun,
  timeoutMs = 30_000,
): Promise<RunSnapshot> {
  const snapshot = await pollUntil(
    () => fetchRun(stack, run).catch(() => null),
    (s) => s !== null && s.status !== 'running',
    { timeoutMs, everyMs: 200 },
    () => `run ${run.runId} still running after ${timeoutMs} ms`,
  );
  return snapshot!;
}

/**
 * Text with the Markdown markers the scripted agent writes (`#` headings, `**` emphasis,
 * code fences) and the whitespace taken out: what must match between the server's Markdown
 * source and the text the page renders from it.
 */
export function squash(text: string): string {
  return text.replace(/[\s#`*]+/g, '');
}

/** The text of the run's last assistant message, as the server folded it. */
export function serverText(snapshot: RunSnapshot): string {
  const assistant = snapshot.messages.filter((m) => m.role === 'assistant').at(-1);
  if (!assistant) throw new Error(`run ${snapshot.runId} has no assistant message`);
  return messageText(assistant);
}

/** Calls a demo chaos endpoint on the API server (never through the browser's network). */
export async function chaos(stack: Stack, action: string, body: unknown = {}) {
  const response = await fetch(`${stack.api.origin}/api/__chaos/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Reads `read()` every `everyMs` (default 100) until `done` holds, and returns that value;
 * past `timeoutMs` it throws what `failure` says of the last value read.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs, everyMs = 100 }: { timeoutMs: number; everyMs?: number },
  failure: (last: T) => string,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(failure(value));
    await sleep(everyMs);
  }
}
