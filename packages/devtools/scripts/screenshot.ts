// Photographs the devtools panel in Chromium for the README, from the real stack (the demo's
// API server with the scripted reply, the built demo, whose inspector is this panel):
// docs/panel.png after a reload mid-answer (the run restored at its stored offset, the next
// request after it) and a cut connection (the dropped stream, the retry, the resume): the
// facts and the timeline.
// Run: pnpm --filter @resumable/devtools screenshot  (needs /usr/bin/chromium)
import { fileURLToPath } from 'node:url';
import { launchChromium, startStack } from '../../../test/e2e/harness.js';

const docs = fileURLToPath(new URL('../docs/', import.meta.url));
const stack = await startStack({ env: { SCRIPTED_TPS: '40' } });
const browser = await launchChromium();
try {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  await page.emulateMedia({ reducedMotion: 'reduce', colorScheme: 'light' });
  await page.goto(stack.appUrl);
  const panel = page.getByRole('region', { name: 'Resumable devtools' });
  const fact = (id: string) => panel.getByTestId(`rdt-${id}`);
  const input = page.getByRole('textbox', { name: 'Message' });
  await input.fill('Write a long answer: how does this chat survive a reload?');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  // Far enough in that the record holds an offset, then a reload: the run is restored there.
  await page.waitForFunction(
    () => Number(document.querySelector('[data-testid="rdt-resume-point"]')?.textContent) >= 80,
    undefined,
    { timeout: 30_000 },
  );
  await page.waitForTimeout(600); // the record is written at most 4 times a second
  await page.reload();
  await fact('run').filter({ hasText: 'restored at' }).waitFor({ timeout: 15_000 });
  // The demo's side column, wide enough for the panel's rows (a README picture, not the demo).
  await page.addStyleTag({
    content: '.demo { grid-template-columns: 220px minmax(0, 1fr) 720px; }',
  });

  // A cut stream: the server closes it, the client retries after its delay and resumes.
  await page.waitForTimeout(1500);
  await page.getByRole('button', { name: 'Cut the connection now' }).click();
  await page.waitForTimeout(2500);
  await page.locator('.demo-inspector').screenshot({ path: `${docs}panel.png` });
  console.log('wrote docs/panel.png');
} finally {
  await browser.close();
  await stack.close();
}
