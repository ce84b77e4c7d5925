import { describe, expect, it } from 'vitest';
import { highlight, MAX_HIGHLIGHT_CHARS } from './highlight.js';

describe('highlight (hostile code blocks)', () => {
  it('leaves a block over the size limit plain instead of freezing the page', async () => {
    // 256 KB of JavaScript took lowlight over a second of main thread, every 120 ms while
    // it streamed; the block shows as plain text instead.
    const big = 'const x = "a" + 1; // c\n'.repeat(11_000);
    expect(big.length).toBe(264_000);
    const t = performance.now();
    expect(await highlight(big, 'js')).toBeNull();
    expect(performance.now() - t).toBeLessThan(1000);
    // One character over the limit is enough; a small block is still highlighted.
    expect(await highlight(' '.repeat(MAX_HIGHLIGHT_CHARS + 1), 'js')).toBeNull();
    expect(await highlight('let a = 1;', 'js')).not.toBeNull();
  });

  it('treats language names as data: prototype names and long names load nothing', async () => {
    for (const name of [
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'x'.repeat(10_000),
    ]) {
      expect(await highlight('a = 1', name)).toBeNull();
    }
  });
});
