import { render, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Markdown } from './markdown.js';
import { codeChunk, tooHostileToParse } from './markdown-guard.js';
import { outsideCode } from './outside-code.js';

/** Rendered, and how long it took (ms). */
function timed(text: string, streaming = false) {
  const t = performance.now();
  const { container } = render(<Markdown text={text} streaming={streaming} />);
  return { container, ms: performance.now() - t };
}

/** The text, when shown as plain text: the Markdown's only child is one text node. */
function plainText(container: HTMLElement): string | null {
  const md = container.querySelector('.rc-markdown')!;
  return md.childElementCount === 0 ? md.textContent : null;
}

describe('<Markdown> given text built to break the parser', () => {
  it('10,000 nested quotes render as the text they are instead of overflowing the stack', () => {
    const text = `${'>'.repeat(10_000)} x`;
    const { container } = timed(text);
    expect(plainText(container)).toBe(text);
    expect(container.querySelectorAll('blockquote')).toHaveLength(0);
  });

  // Each of these held the main thread for seconds before (some, minutes), and again for
  // every streamed token. The bound is generous: the guard itself takes milliseconds.
  const slow: [string, string][] = [
    ['alternating emphasis', '*_'.repeat(10_000)],
    ['nested images', `${'!['.repeat(1000)}x${'](u)'.repeat(1000)}`],
    ['nested emphasis', `${'*a '.repeat(1000)}x${' a*'.repeat(1000)}`],
    ['nested lists on one line', `${'- '.repeat(1000)}x`],
    ['nested ordered lists on one line', `${'1. '.repeat(1000)}x`],
    ['unclosed link destinations', '[a](<b'.repeat(5000)],
  ];
  it.each(slow)('%s: shown whole as plain text, at once', (_name, text) => {
    for (const streaming of [false, true]) {
      const { container, ms } = timed(text, streaming);
      expect(plainText(container)).toBe(text);
      expect(ms).toBeLessThan(1500);
    }
  });

  it('real replies are still Markdown: dense but ordinary text passes the guard', () => {
    const ordinary = [
      '**a**, **b**, **c** and [link](https://a.example) — `x*y*z`',
      '| a | b | c |\n|---|---|---|\n| **1** | _2_ | ~~3~~ |',
      // A 120-column C banner, a signature line, bold one-letter names (the first limit,
      // 100, made each of these whole replies plain text).
      `\`\`\`c\n/${'*'.repeat(118)}/\nint *p = &a[b[c]];\n\`\`\``,
      `Signature: ${'_'.repeat(100)}`,
      '**a**, '.repeat(40),
      Array.from({ length: 300 }, (_, i) => `- [item ${i}](https://a.example/${i}) **bold**`).join(
        '\n',
      ),
      `| ${'a | '.repeat(60)}\n|${'---|'.repeat(60)}`,
      `${'-'.repeat(99)}\n${'- yes\n1. no\n'.repeat(200)}`,
    ];
    for (const text of ordinary) expect(tooHostileToParse(text)).toBe(false);
    // The check stays linear on a megabyte made to make it backtrack.
    const t = performance.now();
    expect(tooHostileToParse(`${'- '.repeat(99)}xyz `.repeat(5000))).toBe(false);
    expect(performance.now() - t).toBeLessThan(1500);
    const { container } = timed(ordinary[0]!);
    expect(plainText(container)).toBeNull();
    expect(container.querySelectorAll('strong')).toHaveLength(3);
  });

  // A 120-column box of `*`, `|` and `_` (300 packed markup characters), and a 300-column
  // banner (indentation breaks a box's run at each line): all of them code.
  const box = `${'*'.repeat(120)}\n${'|_'.repeat(60)}\n${'*'.repeat(120)}`;
  const banner = `/${'*'.repeat(300)}/`;
  it.each([
    ['a fenced', `Here is the box:\n\n\`\`\`text\n${box}\n\`\`\`\n\nAnd **done**.`, box],
    ['an indented', `Here is the banner:\n\n    ${banner}\n\nAnd **done**.`, banner],
  ])(
    'markup packed only inside %s code block does not count: the reply stays Markdown',
    async (_n, text, code) => {
      expect(tooHostileToParse(text, outsideCode)).toBe(false);
      // Plain text until the finer check's chunk is there, then Markdown.
      expect(tooHostileToParse(text)).toBe(true);
      const { container } = timed(text);
      await waitFor(() => expect(plainText(container)).toBeNull());
      expect([...container.querySelectorAll('pre code')].map((c) => c.textContent)).toEqual([
        `${code}\n`,
      ]);
      expect(container.querySelector('strong')!.textContent).toBe('done');
    },
  );

  // Lines that look like code but that the parser reads as Markdown still count.
  const quotes = `${'>'.repeat(10_000)} x`;
  it.each([
    ['a fence inside raw HTML', `<pre>\n\`\`\`\n</pre>\n${quotes}`],
    ['a fence inside a list item', `1. a\n   \`\`\`\nb\n${quotes}`],
    ['a fence inside a quote', `> \`\`\`\n${quotes}`],
    ['indentation that continues a list item', `- a\nlazy\n\n    ${quotes}`],
    ['indentation that continues a footnote', `[^1]: a\n\n    ${quotes}`],
    ['a fence closed by a longer fence line', `\`\`\`\n\`\`\`\`\n${quotes}`],
  ])('%s: still shown as plain text', async (_n, text) => {
    expect(tooHostileToParse(text, outsideCode)).toBe(true);
    await codeChunk.load();
    // With the finer check's chunk there from the first render.
    expect(plainText(timed(text).container)).toBe(text);
  });

  it('streamed after ordinary blocks: only the rest is plain text, the blocks before stay Markdown', () => {
    const head = '# Title\n\nSome **bold** words.\n\n';
    const hostile = `x\n${'*_'.repeat(1000)}`;
    const { container, rerender } = render(<Markdown text={head} streaming />);
    for (let end = 1; end <= hostile.length; end += 50) {
      rerender(<Markdown text={`${head}${hostile.slice(0, end)}`} streaming />);
    }
    rerender(<Markdown text={`${head}${hostile}`} streaming />);
    const md = container.querySelector('.rc-markdown')!;
    expect(md.querySelector('h1')!.textContent).toBe('Title');
    expect(md.querySelector('strong')!.textContent).toBe('bold');
    // The last block alone, as it came: not the blocks before it, one more per token.
    expect(md.lastChild!.nodeType).toBe(Node.TEXT_NODE);
    expect(md.lastChild!.textContent).toBe(hostile);
  });
});
