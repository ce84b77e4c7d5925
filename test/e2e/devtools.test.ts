import type { Locator, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { fetchRun, pollUntil, waitForRunEnd } from './demo-page.js';
import { useDemoStack } from './fixture.js';

/**
 * @resumable/devtools in Chromium: the demo's inspector is the devtools panel
 * (`<ResumableDevtoolsPanel>` from `@resumable/devtools/production`), on the real API server
 * and the built demo. The panel lists a run's events with their offsets, shows the resume
 * point move across a reload (the run restored from its record, the next request after it),
 * and a page whose IndexedDB fails shows its records kept in memory, and why.
 */

/** Events a conversation's view keeps (`LIMITS.events` in packages/devtools). */
const KEPT_EVENTS = 500;

const LONG_PROMPT = 'Write a long answer: how does this chat survive a reload?';

const e2e = useDemoStack();

/** The panel's parts, by their roles and the facts' test ids. */
function panelOf(page: Page) {
  const panel = page.getByRole('region', { name: 'Resumable devtools' });
  const fact = (id: string) => panel.getByTestId(`rdt-${id}`);
  return {
    panel,
    fact,
    text: async (id: string) => ((await fact(id).textContent()) ?? '').trim(),
    /** The Events list, opened (a folded section until then). */
    async events(): Promise<Locator> {
      const table = panel.getByRole('table', { name: 'Events' });
      if (!(await table.isVisible())) await panel.locator('summary', { hasText: 'Events' }).click();
      return table;
    },
    async requests(): Promise<Locator> {
      const table = panel.getByRole('table', { name: 'Requests' });
      if (!(await table.isVisible())) {
        await panel.locator('summary', { hasText: 'Requests' }).click();
      }
      return table;
    },
  };
}

/** The offsets the Events table lists, in its order, and the type of each. */
async function listedEvents(table: Locator): Promise<{ offset: number; type: string }[]> {
  return table.locator('tbody tr').evaluateAll((rows) =>
    rows.map((row) => ({
      offset: Number(row.children[0]!.textContent),
      type: row.children[1]!.textContent ?? '',
    })),
  );
}

const count = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('the devtools panel in Chromium', () => {
  test("it lists a run's events with their offsets, and the resume point moves across a reload", async () => {
    const demo = await e2e.openDemo();
    const devtools = panelOf(demo.page);
    await demo.send(LONG_PROMPT);
    const run = await demo.run();
    const short = `${run.runId.slice(0, 8)}…`;

    // Mid-answer (held at 50 events a second): every event so far, one row each, in order.
    await expect
      .poll(async () => Number(await devtools.text('resume-point')), { timeout: 15_000 })
      .toBeGreaterThanOrEqual(30);
    expect(await devtools.text('run')).toBe(`${short} started`);
    expect(await devtools.text('storage')).toBe('IndexedDB');
    await devtools.events();
    // Rows and facts read in one go: one redraw of the panel shows them of the same moment.
    const before = await devtools.panel.evaluate((panel) => ({
      rows: [...panel.querySelectorAll('table[aria-label="Events"] tbody tr')].map((row) => ({
        offset: Number(row.children[0]!.textContent),
        type: row.children[1]!.textContent ?? '',
      })),
      point: Number(panel.querySelector('[data-testid="rdt-resume-point"]')!.textContent),
      count: panel.querySelector('[data-testid="rdt-event-count"]')!.textContent,
    }));
    expect(before.rows.map((e) => e.offset)).toEqual(count(1, before.point));
    expect(before.rows[0]!.type).toBe('RUN_STARTED');
    expect(before.count).toBe(String(before.point));
    // The events request of the run, after=0, is listed with its resume point.
    const requests = await devtools.requests();
    const eventsRow = requests.locator('tbody tr', { hasText: `GET /runs/${short}/events` });
    await expect.poll(() => eventsRow.first().getAttribute('data-after')).toBe('0');
    expect(await devtools.text('last-after')).toBe('0');

    // A reload once the page has stored a point: the new page's panel shows the run restored
    // at the stored offset, the next request after it, and the events from there on.
    await demo.waitForStoredOffset(run.runId, before.point - 1);
    const asked = demo.eventsRequestsFor(run.runId).length;
    await demo.page.reload();
    await demo.composer.waitFor();
    const restored = await pollUntil(
      () => devtools.text('run'),
      (text) => text.startsWith(`${short} restored at `),
      { timeoutMs: 10_000 },
      (text) => `run fact "${text}": ${demo.describe()}`,
    );
    const stored = Number(restored.slice(`${short} restored at `.length));
    expect(stored).toBeGreaterThanOrEqual(before.point);
    // The wire agrees: the reloaded page's events request asked after the restored offset.
    const resumed = await pollUntil(
      async () => demo.eventsRequestsFor(run.runId).slice(asked),
      (list) => list.length > 0,
      { timeoutMs: 10_000 },
      () => `no events request after the reload: ${demo.describe()}`,
    );
    expect(resumed[0]!.after).toBe(stored);
    await expect.poll(() => devtools.text('last-after'), { timeout: 10_000 }).toBe(String(stored));
    await expect
      .poll(async () => Number(await devtools.text('resume-point')), { timeout: 10_000 })
      .toBeGreaterThan(stored);
    const timeline = devtools.panel.getByRole('list', { name: 'Timeline' });
    await expect
      .poll(() => timeline.textContent())
      .toContain(`run ${short} restored from its record at offset ${stored} (running)`);

    // To the end: the events the reloaded page received, offset after offset from the
    // stored one to the server's last, and the resume point at the server's last offset.
    await e2e.release();
    const snapshot = await waitForRunEnd(e2e.stack, run);
    expect(snapshot.status).toBe('finished');
    await expect
      .poll(() => devtools.text('resume-point'), { timeout: 15_000 })
      .toBe(String(snapshot.lastOffset));
    const after = await listedEvents(await devtools.events());
    // The panel keeps a conversation's last 500 events (LIMITS.events) and counts them all.
    expect(after.map((e) => e.offset)).toEqual(
      count(stored + 1, snapshot.lastOffset).slice(-KEPT_EVENTS),
    );
    expect(await devtools.text('event-count')).toBe(String(snapshot.lastOffset - stored));
    expect(after.at(-1)!.type).toBe('RUN_FINISHED');
    expect((await fetchRun(e2e.stack, run)).lastOffset).toBe(snapshot.lastOffset);
    expect(await devtools.text('phase')).toMatch(/^finished /);
  });

  test('a page whose IndexedDB fails: the panel shows the records kept in memory, and why', async () => {
    await e2e.release();
    const context = await e2e.newContext();
    // As in a browser that refuses storage (a private window, a blocked origin): opening a
    // database fails with the browser's own error.
    await context.addInitScript(() => {
      IDBFactory.prototype.open = () => {
        throw new DOMException('The test refused IndexedDB', 'SecurityError');
      };
    });
    const page = await context.newPage();
    await page.goto(e2e.stack.appUrl);
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.waitFor({ timeout: 15_000 });
    await composer.fill('What time is it?');
    await composer.press('Enter');
    await page
      .locator('[data-role="assistant"][data-status="complete"]')
      .last()
      .waitFor({ timeout: 30_000 });
    const devtools = panelOf(page);
    const fallback =
      'indexeddb storage failed (The test refused IndexedDB); records are kept in memory';
    await expect
      .poll(() => devtools.text('storage'), { timeout: 10_000 })
      .toBe(`memory · ${fallback}`);
    // The writes went to memory; the timeline says when and why.
    expect(await devtools.text('last-write')).toMatch(/^offset [1-9]\d* · .* · \d+ ms$/);
    const timeline = devtools.panel.getByRole('list', { name: 'Timeline' });
    expect(await timeline.textContent()).toContain(`storage: memory — ${fallback}`);
  });

  test("in the TanStack Devtools shell (the demo's tanstack.html): its Resumable tab lists the run's events", async () => {
    await e2e.release();
    const context = await e2e.newContext();
    const page = await context.newPage();
    const posted: { runId: string; token: string }[] = [];
    page.on('response', async (response) => {
      if (response.request().method() !== 'POST' || !response.url().endsWith('/api/runs')) return;
      const body = (await response.json().catch(() => null)) as (typeof posted)[number] | null;
      if (body?.runId) posted.push(body);
    });
    await page.goto(`${e2e.stack.appUrl}/tanstack.html`);
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.waitFor({ timeout: 15_000 });
    await composer.fill('What time is it?');
    await composer.press('Enter');
    await page
      .locator('[data-role="assistant"][data-status="complete"]')
      .last()
      .waitFor({ timeout: 30_000 });
    const run = await pollUntil(
      async () => posted[0],
      (found) => found !== undefined,
      { timeoutMs: 5_000 },
      () => 'no run was posted',
    );
    const snapshot = await waitForRunEnd(e2e.stack, { ...run!, threadId: '' });
    // The shell's panel holds the plugin's tab: the Resumable devtools, in the shell's theme.
    const devtools = panelOf(page);
    await expect
      .poll(() => devtools.text('resume-point'), { timeout: 10_000 })
      .toBe(String(snapshot.lastOffset));
    expect(await devtools.text('run')).toBe(`${run!.runId.slice(0, 8)}… started`);
    const events = await listedEvents(await devtools.events());
    expect(events.map((e) => e.offset)).toEqual(count(1, snapshot.lastOffset).slice(-KEPT_EVENTS));
    expect(events.at(-1)!.type).toBe('RUN_FINISHED');
    expect(await devtools.text('event-count')).toBe(String(snapshot.lastOffset));
  });
});
