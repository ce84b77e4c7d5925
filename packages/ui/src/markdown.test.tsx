import { render, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Markdown } from './markdown.js';
import { splitBlocks } from './markdown-split.js';

describe('splitBlocks (the one parser)', () => {
  it('splits at top-level blocks, blank lines staying with the block before', () => {
    const md =
      '# Title\n\nA paragraph\nover two lines.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n\n```ts\nconst x = 1;\n\nconst y = 2;\n```\n';
    expect(splitBlocks(md).blocks).toEqual([
      '# Title\n\n',
      'A paragraph\nover two lines.\n\n',
      '- one\n- two\n\n',
      '| a | b |\n|---|---|\n| 1 | 2 |\n\n',
      '> quoted\n\n',
      '```ts\nconst x = 1;\n\nconst y = 2;\n```\n',
    ]);
    expect(splitBlocks(md).blocks.join('')).toBe(md);
  });

  it('keeps text with reference definitions whole, and leading blank lines in the first block', () => {
    expect(splitBlocks('[x][1]\n\nmore\n\n[1]: https://a.example').blocks).toEqual([
      '[x][1]\n\nmore\n\n[1]: https://a.example',
    ]);
    expect(splitBlocks('\n\nhi\n\nthere').blocks).toEqual(['\n\nhi\n\n', 'there']);
    expect(splitBlocks('').blocks).toEqual([]);
    expect(splitBlocks('   ').blocks).toEqual(['   ']);
  });
});

describe('<Markdown> rendering', () => {
  it('renders quotes, task lists, numbered lists from their start, aligned cells, rules', () => {
    const md =
      '> a *quote*\n\n3. three\n4. four\n\n- [x] done\n- [ ] todo\n\n| l | r |\n|:--|--:|\n| 1 | 2 |\n\n---\n\nline  \nbreak';
    const { container } = render(<Markdown text={md} />);
    expect(container.querySelector('blockquote em')!.textContent).toBe('quote');
    expect(container.querySelector('ol')!.getAttribute('start')).toBe('3');
    const boxes = [...container.querySelectorAll('li.rc-task input')] as HTMLInputElement[];
    expect(boxes.map((b) => [b.checked, b.disabled])).toEqual([
      [true, true],
      [false, true],
    ]);
    expect(
      [...container.querySelectorAll('td')].map((td) => (td as HTMLElement).style.textAlign),
    ).toEqual(['left', 'right']);
    expect(container.querySelectorAll('hr')).toHaveLength(1);
    expect(container.querySelectorAll('br')).toHaveLength(1);
    // Tight list items hold their text directly, without a paragraph.
    expect(container.querySelectorAll('li p')).toHaveLength(0);
  });

  it('shows raw HTML inside lists and quotes as text', () => {
    const { container } = render(<Markdown text={'- <b>x</b>\n\n> <img src=x onerror=y>'} />);
    expect(container.querySelector('li')!.textContent).toBe('<b>x</b>');
    expect(container.querySelector('blockquote')!.textContent).toBe('<img src=x onerror=y>');
    expect(container.querySelectorAll('b, img')).toHaveLength(0);
  });

  it('highlights code once the highlighter has loaded, keeping the exact text', async () => {
    const code = 'const answer: number = 42; // why\nprint("x")';
    const { container } = render(<Markdown text={`\`\`\`ts\n${code}\n\`\`\``} />);
    const el = container.querySelector('pre code')!;
    // First paint: plain code, never waiting for the highlighter.
    expect(el.querySelectorAll('span')).toHaveLength(0);
    expect(el.textContent).toBe(`${code}\n`);
    await waitFor(() => expect(el.querySelector('.hljs-keyword')).not.toBeNull(), {
      timeout: 5000,
    });
    expect(el.querySelector('.hljs-keyword')!.textContent).toBe('const');
    expect(el.querySelector('.hljs-comment')!.textContent).toBe('// why');
    expect(el.textContent).toBe(`${code}\n`);
  });

  it('leaves code in a language it does not know (or none) plain', async () => {
    const { container } = render(<Markdown text={'```klingon\nqapla\n```\n\n```\nplain\n```'} />);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(container.querySelectorAll('pre span')).toHaveLength(0);
    expect([...container.querySelectorAll('pre')].map((p) => p.textContent)).toEqual([
      'qapla\n',
      'plain\n',
    ]);
  });
});
