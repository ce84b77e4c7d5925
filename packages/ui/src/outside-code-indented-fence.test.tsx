import { render } from '@testing-library/react';
import type { Nodes } from 'mdast';
import { describe, expect, it } from 'vitest';
import { Markdown } from './markdown.js';
import { codeChunk, tooHostileToParse } from './markdown-guard.js';
import { splitBlocks } from './markdown-split.js';
import { parseMarkdown } from './mdast-react.js';
import { outsideCode } from './outside-code.js';

// Review of outside-code.ts (b90b7ea): it must never take for code what the parser reads as
// Markdown, or hostile markup hidden there reaches the parser.
const codeValues = (text: string): string[] => {
  const out: string[] = [];
  const walk = (n: Nodes) => {
    if (n.type === 'code') out.push(n.value);
    if ('children' in n) for (const c of n.children) walk(c);
  };
  walk(parseMarkdown(text));
  return out;
};

describe('outsideCode review', () => {
  it('a fence indented 1-3 spaces: its closing line is not taken for an opening one', () => {
    // The parser: an indented fence "  ```" closed by "```"; the '*_' run is a paragraph.
    const run = '*_'.repeat(200);
    const text = `  \`\`\`\ncode\n\`\`\`\n${run}\n`;
    expect(codeValues(text)).toEqual(['code']);
    // outsideCode drops the run as if it were code, so the guard lets it through.
    expect(outsideCode(text)).toBe(`  \`\`\`\ncode\n\`\`\`\n${run}\n`);
  });

  it('the same with the hostile 10 KB of ">" the guard exists for: shown as plain text', () => {
    const text = ` \`\`\`\nx\n\`\`\`\n${'>'.repeat(10_000)}\n`;
    expect(tooHostileToParse(text)).toBe(true);
    expect(tooHostileToParse(text, outsideCode)).toBe(true);
    expect(splitBlocks(text, null, outsideCode).plainLast).toBe(true);
  });

  it('a streamed <Markdown> with that text renders (the parser is not handed it)', async () => {
    await codeChunk.load();
    const text = ` \`\`\`\nx\n\`\`\`\n${'>'.repeat(10_000)}\n`;
    // Before: RangeError: Maximum call stack size exceeded, out of render.
    const { container } = render(<Markdown text={text} streaming />);
    expect(container.textContent).toContain('>'.repeat(10_000));
  });

  it('the guard is linear in fact: 1 MB of 299-long runs costs under 20x 1 MB of plain text', () => {
    // (Pre-existing PACKED regex: every start inside a run re-walks up to 300 units.)
    const runs = `${'*'.repeat(299)}abc`.repeat(Math.ceil(1e6 / 302));
    const plain = 'abcd efgh '.repeat(1e5);
    let t0 = performance.now();
    expect(tooHostileToParse(plain)).toBe(false);
    const plainMs = performance.now() - t0;
    t0 = performance.now();
    expect(tooHostileToParse(runs, outsideCode)).toBe(false);
    const runsMs = performance.now() - t0;
    expect(runsMs).toBeLessThan(20 * Math.max(plainMs, 5));
  });
});
