// @vitest-environment node
// Sticking to the bottom needs real layout: checked in Chromium on the fixture page.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureServer, launchChromium, serveFixture } from '../scripts/fixture-server.js';

type Pushable = { __rcPush: (paragraphs: number) => void; __rcSend: (text: string) => void };

let fixture: FixtureServer;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;

beforeAll(async () => {
  fixture = await serveFixture();
  browser = await launchChromium({ width: 800, height: 700 });
  page = await browser.context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await fixture?.close();
});

/** Pixels between the bottom of the transcript's viewport and the end of its content. */
function gap(): Promise<number> {
  return page.evaluate(() => {
    const log = document.querySelector('[role="log"]')!;
    return log.scrollHeight - log.clientHeight - log.scrollTop;
  });
}

async function settledGap(): Promise<number> {
  // The spring animation settles within a second; poll (bounded) until it stops moving.
  let last = Number.NaN;
  for (let i = 0; i < 40; i++) {
    const now = await gap();
    if (now === last) return now;
    last = now;
    await page.waitForTimeout(100);
  }
  return last;
}

describe('<MessageList> in Chromium', () => {
  it('follows a streaming reply, lets go when the user scrolls up, and Jump to latest returns', async () => {
    await page.goto(`${fixture.url}?mode=stream`);
    await page.waitForSelector('[data-message-id="live"]');
    expect(await settledGap()).toBeLessThanOrEqual(1);

    // The reply grows: the transcript follows it.
    for (let i = 0; i < 5; i++)
      await page.evaluate(() => (window as unknown as Pushable).__rcPush(3));
    expect(await settledGap()).toBeLessThanOrEqual(1);
    expect(await page.getByRole('button', { name: 'Jump to latest' }).count()).toBe(0);

    // A catch-up burst after a reconnect (many screens at once) keeps a pinned view pinned.
    await page.evaluate(() => (window as unknown as Pushable).__rcPush(80));
    // Pinned in the very next frames, not chased by an animation the user could take for
    // having left the bottom.
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
    expect(await gap()).toBeLessThanOrEqual(1);
    expect(await settledGap()).toBeLessThanOrEqual(1);
    expect(await page.getByRole('button', { name: 'Jump to latest' }).count()).toBe(0);

    // The user scrolls up to read: the transcript stays where they put it while text arrives.
    await page.mouse.move(400, 300);
    await page.mouse.wheel(0, -1500);
    const jump = page.getByRole('button', { name: 'Jump to latest' });
    await jump.waitFor({ state: 'visible', timeout: 5000 });
    const before = await page.evaluate(() => document.querySelector('[role="log"]')!.scrollTop);
    for (let i = 0; i < 5; i++)
      await page.evaluate(() => (window as unknown as Pushable).__rcPush(3));
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => document.querySelector('[role="log"]')!.scrollTop)).toBe(
      before,
    );
    expect(await gap()).toBeGreaterThan(1000);

    // Jump to latest: back at the bottom, the button goes away, following resumes.
    await jump.click();
    await jump.waitFor({ state: 'detached', timeout: 5000 });
    expect(await settledGap()).toBeLessThanOrEqual(1);
    await page.evaluate(() => (window as unknown as Pushable).__rcPush(3));
    expect(await settledGap()).toBeLessThanOrEqual(1);
  }, 60_000);

  it('brings your sent message into view even when you had scrolled up', async () => {
    await page.goto(`${fixture.url}?mode=stream`);
    await page.waitForSelector('[data-message-id="live"]');
    await page.mouse.move(400, 300);
    await page.mouse.wheel(0, -1500);
    await page.getByRole('button', { name: 'Jump to latest' }).waitFor({ timeout: 5000 });
    expect(await gap()).toBeGreaterThan(1000);
    await page.evaluate(() => (window as unknown as Pushable).__rcSend('A new question'));
    expect(await settledGap()).toBeLessThanOrEqual(1);
    const box = await page.locator('[data-message-id="sent-41"]').boundingBox();
    expect(box!.y + box!.height).toBeLessThanOrEqual(700);
  }, 60_000);

  it("keeps the kit's sizes under a host page's hostile element rules", async () => {
    /** Sizes of the parts a host's `button`, `svg`, `textarea`, `p` rules used to break. */
    const measure = () =>
      page.evaluate(() => {
        const size = (el: Element | null) => {
          const r = el!.getBoundingClientRect();
          return `${Math.round(r.width)}x${Math.round(r.height)}`;
        };
        const all = (selector: string) =>
          [...document.querySelectorAll(selector)].map((el) => size(el));
        return {
          iconButtons: all('.rc-icon-button'),
          icons: all('.rc-icon-button svg'),
          send: size(document.querySelector('.rc-composer__button')),
          sendIcon: size(document.querySelector('.rc-composer__button svg')),
          input: size(document.querySelector('.rc-composer__input')),
          paragraph: (({ lineHeight, marginTop, marginBottom }) =>
            `${lineHeight} ${marginTop} ${marginBottom}`)(
            getComputedStyle(document.querySelector('.rc-markdown p')!),
          ),
        };
      });
    await page.setViewportSize({ width: 800, height: 700 });
    await page.goto(fixture.url);
    await page.waitForSelector('[data-message-id="u3"]');
    const clean = await measure();
    expect(clean.iconButtons.length).toBeGreaterThanOrEqual(3);
    expect(new Set(clean.iconButtons)).toEqual(new Set(['28x28']));
    expect(new Set(clean.icons)).toEqual(new Set(['16x16']));
    expect(clean.send).toBe('36x36');
    expect(clean.sendIcon).toBe('16x16');
    await page.goto(`${fixture.url}?hostile`);
    await page.waitForSelector('[data-message-id="u3"]');
    // The hostile rules are on the page (a button outside the kit takes them)…
    expect(
      await page.evaluate(() => {
        const b = document.body.appendChild(document.createElement('button'));
        return getComputedStyle(b).paddingLeft;
      }),
    ).toBe('28px');
    // …and every measured part of the kit is exactly as on the clean page.
    expect(await measure()).toEqual(clean);
  }, 60_000);
});
