import { afterEach, describe, expect, it, vi } from 'vitest';

/** Every text handed to the parser, and every block completed for display, in order. */
const parsed: string[] = [];
const completed: string[] = [];
vi.mock('./mdast-react.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('./mdast-react.js')>();
  return {
    ...real,
    parseMarkdown: (...args: Parameters<typeof real.parseMarkdown>) => {
      parsed.push(args[0]);
      return real.parseMarkdown(...args);
    },
  };
});
vi.mock('./markdown-complete.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('./markdown-complete.js')>();
  return {
    ...real,
    completeForDisplay: (block: string) => {
      completed.push(block);
      return real.completeForDisplay(block);
    },
  };
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the appends chunk warms itself at idle', () => {
  it('streams a sample of each kind of block through the split, one per idle callback, once', async () => {
    vi.useFakeTimers();
    // Loading the chunk (markdown.tsx's appendChunk) starts the warm-up: nothing runs at once.
    await import('./markdown-append.js');
    expect(parsed).toEqual([]);
    expect(vi.getTimerCount()).toBe(1);

    // Each idle callback streams one sample token by token, and asks for the next.
    const lastBlocks: string[] = [];
    const parses: number[] = [];
    while (vi.getTimerCount() > 0) {
      parsed.length = 0;
      completed.length = 0;
      vi.advanceTimersToNextTimer();
      lastBlocks.push(completed[completed.length - 1]!);
      parses.push(parsed.length);
    }
    // Six samples, each streamed to its end: its last block is what `<Markdown>` drew last.
    expect(lastBlocks).toEqual([
      'Some words.\n',
      'Some **strong**, *emphasis* and `code`.\n\n',
      '~~Struck~~, a [link](https://example.com/a) and www.example.com.\n\n',
      '- A bullet\n- Another one\n\n',
      '| what | why |\n| --- | --- |\n| `a` | **b** |\n| c | d |\n\n',
      '> A quote that\n> goes on.\n',
    ]);
    // The appends ran: texts handed to the parser per sample, of 3, 10, 6, 18, 24 and 18
    // tokens (a parse per token). The table's and the quote's lines append with none.
    expect(parses).toEqual([1, 6, 5, 10, 6, 6]);

    // Once per page: asking again schedules nothing.
    const { warmUp } = await import('./markdown-warm.js');
    const { extend, closedBefore, parseTail, readUnder } = await import('./markdown-append.js');
    warmUp({ extend, closedBefore, parseTail, readUnder });
    expect(vi.getTimerCount()).toBe(0);
  });
});
