import { isValidElement, type ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { type MdRenderers, parseMarkdown, renderRoot } from './mdast-react.js';

const renderers: MdRenderers = {
  link: () => null,
  image: () => null,
  code: () => null,
  table: (table) => table,
};

/** The `style` prop of every table cell in the elements, in document order. */
function cellStyles(nodes: ReactNode, out: unknown[] = []): unknown[] {
  if (Array.isArray(nodes)) for (const n of nodes) cellStyles(n, out);
  else if (isValidElement<{ style?: unknown; children?: ReactNode }>(nodes)) {
    if (nodes.type === 'th' || nodes.type === 'td') out.push(nodes.props.style);
    cellStyles(nodes.props.children, out);
  }
  return out;
}

describe('renderRoot tables', () => {
  it('gives every cell of an alignment one shared style object, in every render', () => {
    const md = '| l | c | r | n |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |\n| 5 | 6 | 7 | 8 |';
    const first = cellStyles(renderRoot(parseMarkdown(md), renderers));
    const second = cellStyles(renderRoot(parseMarkdown(md), renderers));
    expect(first).toEqual(
      [0, 1, 2]
        .flatMap(() => ['left', 'center', 'right', null])
        .map((a) => (a ? { textAlign: a } : undefined)),
    );
    // The same objects: the header's, each row's and the next render's.
    for (let i = 0; i < first.length; i++) {
      expect(first[i]).toBe(first[i % 4]);
      expect(second[i]).toBe(first[i]);
    }
  });
});
