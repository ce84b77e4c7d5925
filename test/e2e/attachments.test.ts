import { describe, expect, test } from 'vitest';
import { serverText, waitForRunEnd } from './demo-page.js';
import { useDemoStack } from './fixture.js';

/**
 * An image attached in real Chromium, uploaded to the real server (XMLHttpRequest), sent
 * with a prompt, and a reload in the middle of the answer: the prompt's text and its image
 * (loaded from the server with the thread's token) are there again, and the answer ends
 * equal to the server's.
 */

const PROMPT = 'Write a long answer: what is in this picture?';
/** A real 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const e2e = useDemoStack();

describe('attachments in Chromium', () => {
  test('attach an image and send it; reload mid-answer: image and text intact', async () => {
    const demo = await e2e.openDemo();
    const { page } = demo;
    await page
      .locator('.rc-composer input[type="file"]')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    // The preview is there at once; Send waits for the upload.
    await page.locator('.rc-attachment__thumb').waitFor({ timeout: 5_000 });
    await page.locator('.rc-attachment[data-phase="uploaded"]').waitFor({ timeout: 10_000 });
    await demo.send(PROMPT);
    const run = await demo.run();
    await demo.waitForText(40);

    await page.reload();
    await demo.composer.waitFor({ timeout: 15_000 });
    const prompt = page.locator('[data-role="user"]').last();
    await prompt.waitFor({ timeout: 10_000 });
    expect(await prompt.locator('[data-part="text"]').textContent()).toBe(PROMPT);
    const image = prompt.locator('img[data-part="image"]');
    expect(await image.getAttribute('alt')).toBe('dot.png');
    // Loaded from the server (the token rides as ?token=), not a broken image.
    await expect
      .poll(
        () => image.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : -1)),
        {
          timeout: 10_000,
        },
      )
      .toBe(1);
    const src = new URL((await image.getAttribute('src'))!, e2e.stack.appUrl);
    expect(src.pathname).toMatch(new RegExp(`^/api/threads/${run.threadId}/files/[^/]+$`));
    expect(src.searchParams.get('token')).toBe(run.token);
    // The reload came mid-answer: the answer resumes and ends equal to the server's.
    const snapshot = await waitForRunEnd(e2e.stack, run);
    await demo.waitForMessageStatus('complete');
    expect(await demo.copiedText()).toBe(serverText(snapshot));
    // Exactly one run, whose prompt carried the image part.
    expect(demo.runPosts).toHaveLength(1);
    const sent = demo.runPosts[0]!.postDataJSON() as {
      messages: { content: Array<{ type: string; source?: { value: string } }> }[];
    };
    expect(sent.messages[0]!.content.map((part) => part.type)).toEqual(['text', 'image']);
    expect(sent.messages[0]!.content[1]!.source!.value).toBe(src.pathname);
  });
});
