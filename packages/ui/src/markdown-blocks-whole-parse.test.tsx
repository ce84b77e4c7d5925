import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LABELS } from './labels.js';
import { type CodeRenderer, Markdown, makeRenderers } from './markdown.js';
import { parseMarkdown, renderRoot } from './mdast-react.js';

// Review of splitBlocks (b90b7ea, 82833dd): block-wise rendering must equal a whole parse.
const renderCode: CodeRenderer = (code) => code;

function Whole({ text }: { text: string }) {
  const r = makeRenderers(DEFAULT_LABELS, undefined, renderCode);
  return <div className="rc-markdown">{renderRoot(parseMarkdown(text), r)}</div>;
}

function expectPrefixesEqual(doc: string) {
  const blockwise = render(<Markdown text="" renderCode={renderCode} />);
  const whole = render(<Whole text="" />);
  for (let end = 1; end <= doc.length; end++) {
    const text = doc.slice(0, end);
    blockwise.rerender(<Markdown text={text} renderCode={renderCode} />);
    whole.rerender(<Whole text={text} />);
    expect(blockwise.container.innerHTML, JSON.stringify(text)).toBe(whole.container.innerHTML);
  }
}

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

describe('splitBlocks review', () => {
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
