import { render } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Markdown } from './markdown.js';

// Review of splitBlocks' definition check (b90b7ea): it reads code as well.
const parsed: string[] = [];
vi.mock('./mdast-react.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('./mdast-react.js')>();
  return {
    ...real,
    parseMarkdown: (text: string) => {
      parsed.push(text);
      return real.parseMarkdown(text);
    },
  };
});

describe('splitBlocks cost review', () => {
  it('a TypeScript mapped type in a code block does not turn block-wise parsing off', () => {
    // '  [K in keyof T]: …' inside a fence matches /^ {0,3}\[[^\]\n]+\]:/m: from then on
    // every token re-parses the whole reply.
    const code = '```ts\ntype Ro<T> = {\n  [K in keyof T]: T[K];\n};\n```\n\n';
    const paras = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} says words.\n\n`).join('');
    const doc = code + paras;
    const { rerender } = render(<Markdown text="" streaming />);
    for (let end = 4; end <= doc.length; end += 4) {
      rerender(<Markdown text={doc.slice(0, end)} streaming />);
    }
    parsed.length = 0;
    rerender(<Markdown text={`${doc}One more.`} streaming />);
    // One more token: the last block or two, not the 40 paragraphs and the fence again.
    expect(Math.max(...parsed.map((t) => t.length))).toBeLessThan(100);
  });
});
