// Photographs the real <ResumableChatView> (static fixture page) in Chromium in both themes,
// on a desktop and on a phone (390×844): docs/light.png, docs/dark.png, docs/phone-light.png
// and docs/phone-dark.png for the README.
// Run: pnpm --filter @resumable/ui screenshot  (needs /usr/bin/chromium)
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, serveFixture } from './fixture-server.js';

const docs = resolve(fileURLToPath(new URL('.', import.meta.url)), '../docs');
const fixture = await serveFixture();
const browser = await launchChromium({ width: 880, height: 1180 });
const background = (page: import('playwright-core').Page) =>
  page.evaluate(() => getComputedStyle(document.querySelector('.rc-root')!).backgroundColor);

try {
  const page = await browser.context.newPage();
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
    // No data-theme: the colours come from the emulated prefers-color-scheme.
    await page.goto(fixture.url);
    await page.waitForSelector('[data-message-id="u3"]');
    // Open the tool call so its arguments and result show.
    await page.click('[data-tool-call-id="c1"] > summary');
    // The highlighter loads after the first paint: wait for its colours.
    await page.waitForSelector('.rc-code .hljs-keyword');
    const expected = theme === 'dark' ? 'rgb(15, 15, 17)' : 'rgb(255, 255, 255)';
    const bg = await background(page);
    if (bg !== expected) throw new Error(`${theme}: background ${bg}, expected ${expected}`);
    await page.screenshot({ path: join(docs, `${theme}.png`) });
    console.log(`wrote docs/${theme}.png`);
  }
  // A phone: the transcript scrolls, the composer stays at the bottom of the screen.
  const phone = await browser.context.newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  for (const theme of ['light', 'dark'] as const) {
    await phone.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
    await phone.goto(`${fixture.url}?mode=phone`);
    await phone.waitForSelector('.rc-code .hljs-keyword');
    await phone.screenshot({ path: join(docs, `phone-${theme}.png`) });
    console.log(`wrote docs/phone-${theme}.png`);
  }
  // data-theme beats the system preference, both ways.
  for (const [system, forced, expected] of [
    ['dark', 'light', 'rgb(255, 255, 255)'],
    ['light', 'dark', 'rgb(15, 15, 17)'],
  ] as const) {
    await page.emulateMedia({ colorScheme: system });
    await page.goto(`${fixture.url}?theme=${forced}`);
    await page.waitForSelector('.rc-root');
    const bg = await background(page);
    if (bg !== expected) throw new Error(`system ${system}, data-theme ${forced}: ${bg}`);
  }
  console.log('data-theme overrides prefers-color-scheme both ways');
} finally {
  await browser.close();
  await fixture.close();
}
