// @vitest-environment node
// Streaming Markdown as a reader sees it, in Chromium on the fixture page (`?mode=markdown`:
// one reply the page writes into): wide tables and long code scroll in their own box with no
// word broken, a table never shows as raw `|` rows while it streams, and finished blocks are
// not drawn again while later text streams.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureServer, launchChromium, serveFixture } from '../scripts/fixture-server.js';

type Writable = { __rcAppend: (text: string) => void; __rcEnd: () => void };

let fixture: FixtureServer;

beforeAll(async () => {
  fixture = await serveFixture();
}, 60_000);

afterAll(async () => {
  await fixture?.close();
});

const COLUMNS = Array.from({ length: 10 }, (_, i) => `column number ${i + 1}`);
const WIDE_TABLE = [
  `| ${COLUMNS.join(' | ')} |`,
  `|${' --- |'.repeat(10)}`,
  `| ${COLUMNS.map((_, i) => `resumes after offset ${i * 42}`).join(' | ')} |`,
].join('\n');
const LONG_LINE = `const offsets = [${Array.from({ length: 60 }, (_, i) => i * 42).join(', ')}];`;
const WIDE_DOC = `Every column of this table keeps its words whole.\n\n${WIDE_TABLE}\n\n\`\`\`ts\n${LONG_LINE}\n\`\`\`\n\nThat is all.\n`;

/** Words (`\S+`) of `selector`'s text that the layout broke over two lines or more. */
function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const broken: string[] = [];
    for (const el of document.querySelectorAll(sel)) {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of (node.textContent ?? '').matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          if (range.getClientRects().length !== 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  }, selector);
}

/** Writes `text` into the reply one token (a word and its spaces) per task, as a model does. */
async function stream(page: Page, text: string): Promise<void> {
  await page.evaluate(
    async (tokens) => {
      for (const token of tokens) {
        (window as unknown as Writable).__rcAppend(token);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    },
    text.match(/\S+\s*|\s+/g) ?? [],
  );
}

describe.each([
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
])('a wide table and long code at $width×$height', (viewport) => {
  it('scroll in their own named, focusable box, and no word is broken', async () => {
    const browser = await launchChromium(viewport);
    try {
      const page = await browser.context.newPage();
      await page.goto(`${fixture.url}?mode=markdown`);
      await page.waitForFunction(() => '__rcAppend' in window, null, { timeout: 10_000 });
      await page.evaluate((doc) => {
        (window as unknown as Writable).__rcAppend(doc);
        (window as unknown as Writable).__rcEnd();
      }, WIDE_DOC);
      const table = page.getByRole('region', { name: 'Table' });
      await table.waitFor({ timeout: 10_000 });
      expect(await page.locator('.rc-markdown th').allTextContents()).toEqual(COLUMNS);

      // Not one word of a cell (or of the code) is broken over two lines.
      expect(await brokenWords(page, '.rc-markdown th, .rc-markdown td')).toEqual([]);
      expect(await brokenWords(page, '.rc-code code')).toEqual([]);

      const boxes = await page.evaluate(() => {
        const box = (el: Element) => ({
          scrollWidth: el.scrollWidth,
          clientWidth: el.clientWidth,
          overflowX: getComputedStyle(el).overflowX,
          tabIndex: (el as HTMLElement).tabIndex,
        });
        const content = document.querySelector('[data-message-id="w1"] .rc-message__content')!;
        return {
          table: box(document.querySelector('.rc-table-scroll')!),
          code: box(document.querySelector('.rc-code pre')!),
          content: content.getBoundingClientRect().width,
          tableBox: document.querySelector('.rc-table-scroll')!.getBoundingClientRect().width,
          transcript: box(document.querySelector('[role="log"]')!),
        };
      });
      // Each box is no wider than the reply, scrolls sideways, and takes focus.
      expect(boxes.tableBox).toBeLessThanOrEqual(boxes.content);
      expect(boxes.table).toMatchObject({ overflowX: 'auto', tabIndex: 0 });
      expect(boxes.code).toMatchObject({ overflowX: 'auto', tabIndex: 0 });
      // The code line is wider than any reply: it scrolls in its box.
      expect(boxes.code.scrollWidth).toBeGreaterThan(boxes.code.clientWidth);
      // The transcript itself never scrolls sideways: the boxes do.
      expect(boxes.transcript.scrollWidth).toBe(boxes.transcript.clientWidth);
      expect(await page.getByRole('region', { name: 'ts code' }).count()).toBe(1);

      // On a phone, ten columns are wider than the reply: the keyboard scrolls the box.
      if (viewport.width < 500) {
        expect(boxes.table.scrollWidth).toBeGreaterThan(boxes.table.clientWidth);
        await table.focus();
        await page.keyboard.press('ArrowRight');
        await page.waitForFunction(
          () => document.querySelector('.rc-table-scroll')!.scrollLeft > 0,
          null,
          { timeout: 5_000 },
        );
      }
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe('a table streaming in, in Chromium', () => {
  // Issue 27's done-when: at both of its viewports (the phone wraps the text before the table).
  it.each([
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ])(
    'never shows a raw `|` row at $width×$height: every state the DOM went through is recorded',
    async (viewport) => {
      const browser = await launchChromium(viewport);
      try {
        const page = await browser.context.newPage();
        await page.goto(`${fixture.url}?mode=markdown`);
        await page.waitForFunction(() => '__rcAppend' in window, null, { timeout: 10_000 });
        // Every text the reply's Markdown showed, after each batch of DOM changes (a
        // MutationObserver runs before the browser can paint the change).
        await page.evaluate(() => {
          const states: string[] = [];
          (window as unknown as { __states: string[] }).__states = states;
          const reply = document.querySelector('[data-message-id="w1"]')!;
          new MutationObserver(() => {
            states.push(reply.querySelector('.rc-markdown')?.textContent ?? '');
          }).observe(reply, { subtree: true, childList: true, characterData: true });
        });
        const doc = [
          'What each failure looks like:',
          '',
          '| what breaks | what you see | what the page does |',
          '| ------------------ | ------------------------------- | ------------------------ |',
          '| reload | the answer, at once | resumes after its offset |',
          '| Wi-Fi drops | "offline", then the rest | retries when back |',
          '| server restarts | "can\'t reach the server" | backs off, then resumes |',
          '',
          'Nothing is lost.',
          '',
        ].join('\n');
        await stream(page, doc);
        await page.evaluate(() => (window as unknown as Writable).__rcEnd());
        const states = await page.evaluate(
          () => (window as unknown as { __states: string[] }).__states,
        );
        // Recorded throughout (one state per token or more), and not one holds a `|`.
        expect(states.length).toBeGreaterThan(40);
        expect(states.filter((state) => state.includes('|'))).toEqual([]);
        expect(await page.locator('.rc-markdown th').allTextContents()).toEqual([
          'what breaks',
          'what you see',
          'what the page does',
        ]);
        expect(await page.locator('.rc-markdown tbody tr').count()).toBe(3);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );

  it('does not touch finished blocks while later text streams', async () => {
    const browser = await launchChromium({ width: 1280, height: 800 });
    try {
      const page = await browser.context.newPage();
      await page.goto(`${fixture.url}?mode=markdown`);
      await page.waitForFunction(() => '__rcAppend' in window, null, { timeout: 10_000 });
      const code = "const chat = useResumableChat({ endpoint: '/api' });\nawait chat.send('Hi');";
      await stream(
        page,
        [
          '## Settled',
          '',
          'A paragraph with **bold** and `code`.',
          '',
          '| a | b |',
          '| - | - |',
          '| 1 | 2 |',
          '',
          '```ts',
          code,
          '```',
          '',
          '- one',
          '- two',
          '',
          'Next',
        ].join('\n'),
      );
      // The code block is highlighted once its grammar has loaded (its first and only
      // highlight since it was finished): wait for it, then for the throttle to pass.
      await page.waitForFunction(
        (text) => {
          const el = document.querySelector('.rc-code code');
          return el?.textContent === `${text}\n` && el.querySelector('.hljs-keyword') !== null;
        },
        code,
        { timeout: 10_000 },
      );
      await page.waitForTimeout(300);
      // The five finished blocks, and every change inside them from now on.
      await page.evaluate(() => {
        const md = document.querySelector('[data-message-id="w1"] .rc-markdown')!;
        const settled = [...md.children].slice(0, 5);
        const bench = { settled, mutations: 0 };
        (window as unknown as { __settled: typeof bench }).__settled = bench;
        const observer = new MutationObserver((records) => {
          bench.mutations += records.length;
        });
        for (const block of settled) {
          observer.observe(block, {
            subtree: true,
            childList: true,
            characterData: true,
            attributes: true,
          });
        }
      });
      expect(
        await page.evaluate(() =>
          (window as unknown as { __settled: { settled: Element[] } }).__settled.settled.map(
            (el) => el.tagName,
          ),
        ),
      ).toEqual(['H2', 'P', 'SECTION', 'DIV', 'UL']);
      await stream(
        page,
        ` steps:\n\n${Array.from({ length: 12 }, (_, i) => `Paragraph ${i} says **something** in \`code\` and *words*.\n\n`).join('')}`,
      );
      await page.evaluate(() => (window as unknown as Writable).__rcEnd());
      const after = await page.evaluate(() => {
        const { settled, mutations } = (
          window as unknown as { __settled: { settled: Element[]; mutations: number } }
        ).__settled;
        const md = document.querySelector('[data-message-id="w1"] .rc-markdown')!;
        return {
          mutations,
          same: settled.every((el, i) => md.children[i] === el),
          blocks: md.children.length,
        };
      });
      // The same elements, not one change inside them: they were never drawn again.
      expect(after).toEqual({ mutations: 0, same: true, blocks: 18 });
    } finally {
      await browser.close();
    }
  }, 60_000);
});
