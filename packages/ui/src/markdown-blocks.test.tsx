import { render } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_LABELS } from './labels.js';
import { appendChunk, type CodeRenderer, Markdown, makeRenderers } from './markdown.js';
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

/** Every prefix of `doc`, fed to one mounted <Markdown>, renders as a whole parse. */
function expectPrefixesEqual(doc: string) {
  const blockwise = render(<Markdown text="" renderCode={renderCode} />);
  const whole = render(<Whole text="" />);
  // One mounted <Markdown>, fed prefix after prefix: its kept blocks are reused.
  for (let end = 1; end <= doc.length; end++) {
    const text = doc.slice(0, end);
    blockwise.rerender(<Markdown text={text} renderCode={renderCode} />);
    whole.rerender(<Whole text={text} />);
    expect(blockwise.container.innerHTML, JSON.stringify(text)).toBe(whole.container.innerHTML);
  }
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
  [
    'blocks after a blank line: what ends the block before and what continues it',
    '* a\n\n**b** c\n\n2. d\n\n3. e\n\nf\n\n| t | u |\n|---|---|\n| 1 | 2 |\n\n| v |\n|---|\n\n> q\n\n> r\n\n#h\n\n# H\n\n```\nx\n\n```\n\n~~~\ny\n~~~\n\n<pre>\n\nz\n</pre>\n\nend',
  ],
];

describe('<Markdown> block by block', () => {
  it('a reply of more blocks than a group (16) streams into the DOM a whole parse gives', async () => {
    await appendChunk.load();
    // Groups of final blocks are skipped whole: blocks across group boundaries (the 16th,
    // 17th, 33rd…) must still draw, and the last block of each frame must be the one drawn.
    const doc = Array.from({ length: 40 }, (_, i) =>
      i % 5 === 4 ? `- item ${i}\n- **b** ${i}\n\n` : `Block ${i} says *a* \`c\`.\n\n`,
    ).join('');
    const blockwise = render(<Markdown text="" streaming renderCode={renderCode} />);
    const whole = render(<Whole text="" />);
    for (let end = 7; end < doc.length + 7; end += 7) {
      const text = doc.slice(0, end);
      blockwise.rerender(<Markdown text={text} renderCode={renderCode} />);
      whole.rerender(<Whole text={text} />);
      expect(blockwise.container.innerHTML, JSON.stringify(text.slice(-40))).toBe(
        whole.container.innerHTML,
      );
    }
    expect(blockwise.container.querySelectorAll('.rc-markdown > p, .rc-markdown > ul').length).toBe(
      40,
    );
  });

  it.each(tricky)('%s: every prefix renders as the whole document parsed at once', (_n, doc) =>
    expectPrefixesEqual(doc),
  );

  it('parses only the last block per token, never the finished ones again', async () => {
    // What appends without a parse comes in its own chunk, fetched when a <Markdown> mounts.
    await appendChunk.load();
    const doc = Array.from(
      { length: 40 },
      (_, i) => `Paragraph ${i} says **something** in words.\n\n`,
    ).join('');
    const { container, rerender } = render(<Markdown text="" streaming />);
    parsed.length = 0;
    for (let end = 4; end <= doc.length; end += 4) {
      rerender(<Markdown text={doc.slice(0, end)} streaming />);
    }
    // Tokens of 4 characters; each paragraph is 42 with its blank line. A token of words
    // after words ('grap', 'h 0 ', 'says', 'n wo') lengthens the last text with no parse
    // (markdown-append.ts). While the first paragraph is the last block, a token with markup
    // parses it to split and, when completing it for display changed it, again to render:
    // ' **s', 'omet', 'hing' (the open `**` closed for display: 6), '** i' (after `**`: 1);
    // 'rds.' ends a sentence: words. At 44 the second block has begun (1); a blank line lies
    // between them and its first line starts with a letter, so it cannot change the first:
    // the first is final and never parsed again: 8 (15 when each token of the second block's first line
    // that parsed re-read the first, 28 when every render parsed its block again, 22 when
    // every token was parsed once).
    expect(parsed.filter((t) => t.includes('Paragraph 0')).length).toBe(8);
    // The longest text handed to the parser, whatever the length of the reply: a finished
    // paragraph (43 characters from the tenth on) and the token that starts the next one
    // (47; 88 when the next one's whole first line re-read it).
    expect(Math.max(...parsed.map((t) => t.length))).toBe(47);
    expect([...container.querySelectorAll('p')].map((p) => p.textContent)).toEqual(
      Array.from({ length: 40 }, (_, i) => `Paragraph ${i} says something in words.`),
    );
  });

  it('a TypeScript mapped type in a code block does not turn block-wise parsing off', () => {
    // '  [K in keyof T]: …' inside a fence matched the line check for definitions once used
    // (/^ {0,3}\[[^\]\n]+\]:/m): from then on every token re-parsed the whole reply.
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

const fine: [string, string][] = [
  ['a loose list across blank lines', '- a\n\n- b\n\n- c\n'],
  ['setext after a blank-separated paragraph', 'Para\n\nTitle\n---\n\nNext\n===\n'],
  ['an ordered list interrupted and resumed', '1. a\n2. b\n\npara\n\n3. c\n4. d\n'],
  ['HTML blocks', '<div>\n*a*\n</div>\n\n<!--\n\ncomment\n\n-->\n\n*b*\n'],
  ['a table after a paragraph', 'text\n\n| a | b |\n| - | - |\n| 1 | 2 |\n'],
  ['a fence never closed', 'p\n\n```js\nlet a;\n\nlet b;\n'],
  ['indented code after a paragraph', 'p\n    not code\n\n    code\n'],
  ['footnotes', 'A[^1] and B[^2].\n\n[^1]: one\n\n[^2]: two\n'],
  ['thematic breaks vs list items', '* a\n* * *\n* b\n\n- - -\n'],
  ['hard line breaks', 'a  \nb\\\nc\n'],
  ['CR line endings', 'a\r\rb\r- c\r'],
];

describe('<Markdown> block by block: texts a split once got wrong', () => {
  it.each(fine)('%s: every prefix renders as a whole parse', (_n, doc) => expectPrefixesEqual(doc));

  const defs: [string, string][] = [
    ['a definition inside a block quote', '> [x]: https://a.example\n\nSee [x].\n'],
    ['a definition as a list item', '- [x]: https://a.example\n\nSee [x].\n'],
    ['a definition whose label escapes a bracket', '[a\\]b]: https://a.example\n\nSee [a\\]b].\n'],
    [
      'a definition whose label spans two lines',
      '[foo\nbar]: https://a.example\n\nSee [foo bar].\n',
    ],
    ['a footnote defined inside a block quote', 'See[^1].\n\n> [^1]: note\n'],
  ];
  it.each(defs)('%s: the whole text renders as a whole parse', (_n, doc) => {
    const blockwise = render(<Markdown text={doc} renderCode={renderCode} />);
    const whole = render(<Whole text={doc} />);
    expect(blockwise.container.innerHTML).toBe(whole.container.innerHTML);
  });

  it('a table that stops being one (its delimiter row grows past the header): streamed', () => {
    // At '|---|---' the table interrupts the paragraph and 'Intro:' is kept as its own block;
    // at '|---|---|---' (three cells, two in the header) it is no table: one paragraph again,
    // but the kept block stays split, also once the reply is complete.
    const doc = 'Intro:\n| A | B |\n|---|---|---|\n';
    const streamed = render(<Markdown text="" renderCode={renderCode} />);
    for (let end = 1; end <= doc.length; end++) {
      streamed.rerender(<Markdown text={doc.slice(0, end)} renderCode={renderCode} />);
    }
    const fresh = render(<Markdown text={doc} renderCode={renderCode} />);
    expect(fresh.container.innerHTML).toBe(
      '<div class="rc-markdown"><p>Intro:\n| A | B |\n|---|---|---|</p></div>',
    );
    expect(streamed.container.innerHTML).toBe(fresh.container.innerHTML);
  });

  it('a text replaced by a shorter or different one is split afresh', () => {
    const a = '# One\n\nfirst para\n\nsecond para\n';
    const pairs = [a, 'Title\n---\n', a, '# One\n\nfirst para\n\nsecond pare\n', '> x\n'];
    const blockwise = render(<Markdown text="" renderCode={renderCode} />);
    const whole = render(<Whole text="" />);
    for (const text of pairs) {
      blockwise.rerender(<Markdown text={text} renderCode={renderCode} />);
      whole.rerender(<Whole text={text} />);
      expect(blockwise.container.innerHTML, JSON.stringify(text)).toBe(whole.container.innerHTML);
    }
  });
});
