import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { chaos, sleep } from './demo-page.js';
import { useDemoStack } from './fixture.js';

/**
 * The chat as a user sees it, in real Chromium against the real server: the layout on a
 * desktop and on phones in both themes, a reload that shows no flash, the honest state when
 * the server is unreachable while the browser is online, Esc, and axe-core on the demo.
 */

const LONG_PROMPT = 'Write a long answer: how does this chat survive a reload?';
const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

const e2e = useDemoStack();

/** Where the composer and Stop are, and whether the page itself scrolls. */
function layout(page: Page) {
  return page.evaluate(() => {
    const box = (selector: string) => {
      const el = document.querySelector(selector);
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return { top: Math.round(r.top), bottom: Math.round(r.bottom), width: Math.round(r.width) };
    };
    return {
      viewport: innerHeight,
      pageScrolls: document.scrollingElement!.scrollHeight > innerHeight,
      composer: box('.rc-composer__input'),
      stop: box('.rc-composer__button--stop'),
      log: box('[role="log"]'),
    };
  });
}

describe('the chat UI in Chromium', () => {
  test('composer and Stop stay on screen while streaming: desktop and phones, light and dark; Esc stops', async () => {
    const demo = await e2e.openDemo();
    const { page } = demo;
    // Slowed down so the answer is still streaming through every check and the Esc at the end.
    expect((await chaos(e2e.stack, 'slow', { delayMs: 100 })).status).toBe(200);
    await demo.send(LONG_PROMPT);
    await demo.waitForText(100);
    const sizes = [
      [1280, 800],
      [390, 844],
      [360, 640],
    ] as const;
    for (const [width, height] of sizes) {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme });
        const at = `${width}×${height} ${colorScheme}`;
        const l = await layout(page);
        expect(l.pageScrolls, at).toBe(false);
        expect(l.stop, at).not.toBeNull();
        expect(l.stop!.bottom, at).toBeLessThanOrEqual(height);
        expect(l.composer!.bottom, at).toBeLessThanOrEqual(height);
        // The transcript gets most of a phone's screen, not the demo's panels.
        expect(l.log!.bottom - l.log!.top, at).toBeGreaterThan(height * 0.5);
        if (width < 960) {
          expect(await page.getByRole('navigation', { name: 'Conversations' }).isVisible()).toBe(
            false,
          );
          await page.getByRole('button', { name: 'Chats' }).click();
          expect(await page.getByRole('navigation', { name: 'Conversations' }).isVisible()).toBe(
            true,
          );
          await page.getByRole('button', { name: 'Chats' }).click();
        }
      }
    }
    // Esc stops the answer (focus is in the composer after Send).
    await demo.composer.focus();
    await page.keyboard.press('Escape');
    await demo.waitForMessageStatus('stopped', 10_000);
  });

  test('the demo has no axe-core violations, and its inspector timeline is reachable by keyboard', async () => {
    // Checked once the answer is complete: it need not take its time.
    await e2e.release();
    const demo = await e2e.openDemo();
    await demo.page.setViewportSize({ width: 1280, height: 800 });
    await demo.send('What time is it?');
    await demo.waitForMessageStatus('complete');
    await demo.page.addScriptTag({ content: axeSource });
    for (const colorScheme of ['light', 'dark'] as const) {
      await demo.page.emulateMedia({ colorScheme });
      const violations = await demo.page.evaluate(async () => {
        type AxeResult = { violations: { id: string; nodes: { target: string[] }[] }[] };
        const axe = (window as unknown as { axe: { run: (c: unknown) => Promise<AxeResult> } }).axe;
        const result = await axe.run(document);
        return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`);
      });
      expect(violations, colorScheme).toEqual([]);
    }
    expect(await demo.page.getByRole('list', { name: 'Timeline' }).getAttribute('tabindex')).toBe(
      '0',
    );
  });

  test('a reload mid-answer: the text is in the first frame with messages; no empty state, no banner', async () => {
    const demo = await e2e.openDemo();
    const { page } = demo;
    await demo.send(LONG_PROMPT);
    const before = await demo.waitForText(200);
    // The record is written at most 4 times a second: let it catch up with `before`.
    await sleep(600);
    // Samples every frame and every DOM change from the first byte of the reloaded page.
    await page.addInitScript(() => {
      type Frame = { messages: number; user: number; text: number; empty: boolean; banner: string };
      const frames: Frame[] = [];
      (window as unknown as { __frames: Frame[] }).__frames = frames;
      const sample = () => {
        if (!document.querySelector('.rc-chat') || frames.length > 5000) return;
        frames.push({
          messages: document.querySelectorAll('[data-message-id]').length,
          user: document.querySelectorAll('[data-role="user"]').length,
          text:
            document.querySelector('[data-role="assistant"] [data-part="text"]')?.textContent
              ?.length ?? 0,
          empty: document.querySelector('.rc-message-list__empty') !== null,
          banner: document.querySelector('.rc-connection')?.textContent ?? '',
        });
      };
      new MutationObserver(sample).observe(document, {
        subtree: true,
        childList: true,
        characterData: true,
      });
      const frame = () => {
        sample();
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    });
    await page.reload();
    await demo.composer.waitFor();
    // Past the banner's grace period: anything it would have said is on record by now.
    await sleep(2000);
    type Frame = { messages: number; user: number; text: number; empty: boolean; banner: string };
    const frames = await page.evaluate(() => (window as unknown as { __frames: Frame[] }).__frames);
    expect(frames.length).toBeGreaterThan(10);
    expect(frames.filter((f) => f.empty)).toEqual([]);
    expect(frames.filter((f) => f.banner !== '')).toEqual([]);
    // The first frame that shows anything shows the persisted answer (nothing before it).
    const first = frames.find((f) => f.messages > 0)!;
    expect(frames.slice(0, frames.indexOf(first)).every((f) => f.messages === 0)).toBe(true);
    expect(first.text).toBeGreaterThanOrEqual(before.length);
    // The prompt and its answer come from the two records read together: one frame.
    expect(first.user).toBe(1);
    expect(frames.at(-1)!.user).toBe(1);
  });

  test('server unreachable while online: plain words and a countdown, the prompt kept, then sent on its own when the server is back', async () => {
    // Nothing here happens mid-answer: the answer comes as fast as it can.
    await e2e.release();
    const demo = await e2e.openDemo();
    const { page } = demo;
    // The API refuses connections (as a stopped server does); the browser stays online.
    await page.route('**/api/**', (route) => route.abort('connectionrefused'));
    await demo.send('Are you there?');
    const status = demo.status;
    await expect
      .poll(() => status.textContent(), { timeout: 5000 })
      .toMatch(/^Can’t reach the server — retrying in \d+ sRetry now$/);
    // Between attempts the kept prompt waits; each retry shows 'Sending…' for its moment
    // (one fresh CI run read it mid-attempt), so the label is polled.
    const pending = page.locator('[data-role="user"] [data-part="pending"]').last();
    await expect.poll(() => pending.textContent(), { timeout: 5000 }).toBe('Waiting to send');
    const body = (await page.locator('.rc-chat').textContent()) ?? '';
    expect(body).not.toMatch(/failed to fetch|offline/i);
    expect(await page.evaluate(() => navigator.onLine)).toBe(true);

    // The server is back: with no click and no `online` event, the retry policy sends the
    // kept prompt, once, and the answer comes.
    const started = demo.runs.length;
    await page.unroute('**/api/**');
    await demo.waitForMessageStatus('complete', 30_000);
    expect(demo.runs.length).toBe(started + 1);
    expect(await status.textContent()).toBe('');
    expect(await page.locator('[data-pending]').count()).toBe(0);
  });
});
