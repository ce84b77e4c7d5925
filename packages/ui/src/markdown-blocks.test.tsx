import { render } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_LABELS } from './labels.js';
import { type CodeRenderer, Markdown, makeRenderers } from './markdown.js';
import { parseMarkdown, renderRoot } from './mdast-react.js';

/** Every text handed to the parser, in order. */
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

// Code as plain text on both sides: the highlighter would load and paint at its own time.
const renderCode: CodeRenderer = (code) => code;

/** The same document parsed whole: what the block-wise rendering must equal. */
function Whole({ text }: { text: string }) {
  const r = makeRenderers(DEFAULT_LABELS, undefined, renderCode);
  return <div className="rc-markdown">{renderRoot(parseMarkdown(text), r)}</div>;
}

const tricky: [string, string][] = [
  ['loose and tight lists', '- a\n- b\n\n- c\n\npara\n\n1. x\n2. y\n\n   continued\n\n3. z\n'],
  ['a fence in a list item', '1. Install:\n\n   ```bash\n   npm i\n\n   npm t\n   ```\n2. Run\n'],
  ['Markdown inside a fence', '```md\n# not a heading\n\n- not a list\n\n| a |\n```\n\nafter'],
  ['tables', '| a | b |\n|:--|--:|\n| 1 | 2 |\n| 3 | 4 |\n\ntext\n| c |\n|---|\n| 5 |\n\nend'],
  [
    'reference links and footnotes',
    'See [the docs][d] and [^1].\n\nMore text.\n\n[d]: https://a.example "Docs"\n[^1]: A note.',
  ],
  [
    'setext, lazy quotes, indented code, raw HTML',
    'Title\n=====\n\n> quote\nlazy line\n\n> again\n\nSub\n---\n\n***\n\n    indented\n\n<div>\nraw\n\n</div>\n\nend',
  ],
  ['an indented fence', '  ```js\n  let x;\n\n  ```\n  after\n'],
  ['CRLF and blank lines first', '\r\n\r\na\r\n\r\nb\r\n- c\r\n\r\n  d\r\n'],
  ['raw HTML across a blank line', '<pre>\n\n*x*\n</pre>\n\n*y*'],
  [
    'setext headings and a table after a paragraph line',
    'intro\n| a | b |\n| - | - |\n| 1 | 2 |\n\nText\n---\n\nmore\n===\n',
  ],
  [
    'list items continued after blank and lazy lines',
    '- a\n\n  b\nlazy\n\n- c\n\n      code in item\n\n10. ten\n11. eleven\n\n* x\n+ y\n',
  ],
  ['quotes holding lists and fences', '> - a\n>   ```\n>   code\n>   ```\n> b\n\n> c\n\n>\n'],
];

describe('<Markdown> block by block', () => {
  it.each(tricky)('%s: every prefix renders as the whole document parsed at once', (_n, doc) => {
    const blockwise = render(<Markdown text="" renderCode={renderCode} />);
    const whole = render(<Whole text="" />);
    for (let end = 1; end <= doc.length; end++) {
      const text = doc.slice(0, end);
      // One mounted <Markdown>, fed prefix after prefix: its kept blocks are reused.
      blockwise.rerender(<Markdown text={text} renderCode={renderCode} />);
      whole.rerender(<Whole text={text} />);
      expect(blockwise.container.innerHTML, JSON.stringify(text)).toBe(whole.container.innerHTML);
    }
  });

  it('parses only the last block per token, never the finished ones again', () => {
    const doc = Array.from(
      { length: 40 },
      (_, i) => `Paragraph ${i} says **something** in words.\n\n`,
    ).join('');
    const { container, rerender } = render(<Markdown text="" streaming />);
    parsed.length = 0;
    for (let end = 4; end <= doc.length; end += 4) {
      rerender(<Markdown text={doc.slice(0, end)} streaming />);
    }
    // Tokens of 4 characters; each paragraph is 42 with its blank line. The first is read
    // twice per token while it is the last block (split, then rendered), from the token that
    // completes "Paragraph 0" (12) to 40: 16 parses. At 44 the second block has begun: one
    // split still reads the first, which renders once more without the streaming healer (2).
    // Until the second block holds a line break (48…84) each split re-reads the one before
    // it (10). After that the first is final and never parsed again.
    expect(parsed.filter((t) => t.includes('Paragraph 0')).length).toBe(28);
    // The longest text handed to the parser, whatever the length of the reply: a finished
    // paragraph (43 characters from the tenth on), the next one's first line and the token
    // that ends it.
    expect(Math.max(...parsed.map((t) => t.length))).toBe(88);
    expect([...container.querySelectorAll('p')].map((p) => p.textContent)).toEqual(
      Array.from({ length: 40 }, (_, i) => `Paragraph ${i} says something in words.`),
    );
  });
});
