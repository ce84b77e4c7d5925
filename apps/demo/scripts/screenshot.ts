// Photographs the demo in Chromium for the READMEs, from the real stack (API server with the
// scripted showcase reply, the built app): docs/phone.png mid-answer on a phone, then on a
// desktop docs/mid-stream.png during a 4-second offline spell and docs/recovered.png after it.
// Run: pnpm --filter @resumable/demo screenshot  (needs /usr/bin/chromium)
import { fileURLToPath } from 'node:url';
import { launchChromium, startStack } from '../../../test/e2e/harness.js';

const docs = fileURLToPath(new URL('../docs/', import.meta.url));
const stack = await startStack({ env: { SCRIPTED_REPLY: 'demo', SCRIPTED_TPS: '12' } });
const browser = await launchChromium();
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(stack.appUrl);
  const input = page.getByRole('textbox', { name: 'Message' });
  await input.fill('How does this chat survive a reload?');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  // Past the reasoning and the tool call, into the table and the first code block.
  await page.locator('.rc-code .hljs-keyword').first().waitFor({ timeout: 90_000 });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${docs}phone.png` });
  console.log('wrote docs/phone.png');

  // Offline for 4 s with the chaos panel, then back: "Reconnected — caught up n events".
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole('spinbutton', { name: 'Offline seconds' }).fill('4');
  await page.getByRole('button', { name: 'Go offline' }).click();
  await page
    .locator('.rc-connection [role="status"]', { hasText: 'Offline' })
    .waitFor({ timeout: 10_000 });
  await page.screenshot({ path: `${docs}mid-stream.png` });
  console.log('wrote docs/mid-stream.png');
  await page
    .locator('.rc-connection [role="status"]', { hasText: 'caught up' })
    .waitFor({ timeout: 30_000 });
  await page.screenshot({ path: `${docs}recovered.png` });
  console.log('wrote docs/recovered.png');
} finally {
  await browser.close();
  await stack.close();
}
