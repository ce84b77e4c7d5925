import { describe, expect, test } from 'vitest';
import { serverText, sleep, waitForRunEnd } from './demo-page.js';
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
    // The reload came mid-answer (the answer is held): it resumes and ends equal to the
    // server's, the rest of it at once.
    await e2e.release();
    const snapshot = await waitForRunEnd(e2e.stack, run);
    await demo.waitForMessageStatus('complete');
    expect(await demo.copiedText()).toBe(serverText(snapshot));
    // Exactly one run, whose prompt carried the image part. A reload that beats the outbox's
    // record write sends the prompt again under the same run id (the server answers with the
    // run it has): every POST names this run, and the thread holds this one run only.
    expect(demo.runPosts.length).toBeGreaterThanOrEqual(1);
    for (const post of demo.runPosts) {
      expect((post.postDataJSON() as { runId: string }).runId).toBe(run.runId);
    }
    const thread = await fetch(`${e2e.stack.api.origin}/api/threads/${run.threadId}`, {
      headers: { authorization: `Bearer ${run.token}` },
    });
    expect(thread.status).toBe(200);
    const runs = ((await thread.json()) as { runs: { runId: string }[] }).runs;
    expect(runs.map((r) => r.runId)).toEqual([run.runId]);
    const sent = demo.runPosts[0]!.postDataJSON() as {
      messages: { content: Array<{ type: string; source?: { value: string } }> }[];
    };
    expect(sent.messages[0]!.content.map((part) => part.type)).toEqual(['text', 'image']);
    expect(sent.messages[0]!.content[1]!.source!.value).toBe(src.pathname);
  });

  test('the conversation list: titled by the first prompt, renamed and deleted on the server; a new one unlisted until its first prompt', async () => {
    const demo = await e2e.openDemo();
    const { page } = demo;
    const list = page.getByRole('navigation', { name: 'Conversations' });
    const titles = () =>
      page.locator('.rc-threads__open').evaluateAll((els) => els.map((e) => e.textContent));
    await demo.send('What time is it?');
    const run = await demo.run();
    await expect.poll(titles, { timeout: 10_000 }).toEqual(['What time is it?']);
    const thread = () =>
      fetch(`${e2e.stack.api.origin}/api/threads/${run.threadId}`, {
        headers: { authorization: `Bearer ${run.token}` },
      });

    // Rename by keyboard: F2 on the conversation, type, Enter.
    await list.getByRole('button', { name: 'What time is it?', exact: true }).focus();
    await page.keyboard.press('F2');
    const field = page.getByRole('textbox', { name: 'Conversation title' });
    await field.fill('Clock questions');
    await field.press('Enter');
    await expect.poll(titles).toEqual(['Clock questions']);
    await expect
      .poll(async () => ((await (await thread()).json()) as { title: string }).title)
      .toBe('Clock questions');

    // A new conversation is a draft: shown, not listed until its first prompt. The old one
    // is deleted, on the server too.
    await list.getByRole('button', { name: 'New conversation', exact: true }).first().click();
    await page.getByText('Send a message to start the conversation.').waitFor();
    expect(await titles()).toEqual(['Clock questions']);
    // Deleted while its answer is still being written: the server cancels the run first.
    // Its Delete button shows on hover (and focus).
    await list.getByRole('button', { name: 'Clock questions', exact: true }).hover();
    await list.getByRole('button', { name: 'Delete Clock questions' }).click();
    await list.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(titles).toEqual([]);
    await expect.poll(async () => (await thread()).status).toBe(404);
    // After a reload the list (IndexedDB) is the same.
    await page.reload();
    await demo.composer.waitFor({ timeout: 15_000 });
    await sleep(200);
    expect(await titles()).toEqual([]);
  });
});
