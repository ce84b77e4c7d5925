import { describe, expect, it, vi } from 'vitest';
import { prettyJson } from './pretty-json.js';

describe('prettyJson (hostile tool arguments and results)', () => {
  it('indents ordinary JSON and leaves what does not parse as it came', () => {
    expect(prettyJson('{"q":"rain","n":[1,2]}')).toBe(
      '{\n  "q": "rain",\n  "n": [\n    1,\n    2\n  ]\n}',
    );
    expect(prettyJson('{"q":')).toBe('{"q":');
    expect(prettyJson('  ')).toBe('  ');
  });

  it('keeps deeply nested JSON as it came: indenting it grows quadratically', () => {
    // 6 KB of arguments indented to 18 MB of text in one <pre>.
    const deep = `${'['.repeat(3000)}${']'.repeat(3000)}`;
    expect(prettyJson(deep) === deep).toBe(true);
    // Nesting past the engine's stack: still the text, no throw.
    const deeper = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    expect(prettyJson(deeper) === deeper).toBe(true);
  });

  it('still indents wide, shallow JSON', () => {
    const wide = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ id: i })));
    const pretty = prettyJson(wide);
    expect(pretty.startsWith('[\n  {\n    "id": 0\n  },\n')).toBe(true);
    expect(JSON.parse(pretty)).toEqual(JSON.parse(wide));
  });

  it('counts before it builds: what would indent past a million characters is never built', () => {
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      // 6 KB of nesting: counting stops some 700 levels down, and nothing is stringified.
      const deep = `${'['.repeat(3000)}${']'.repeat(3000)}`;
      expect(prettyJson(deep) === deep).toBe(true);
      expect(stringify).toHaveBeenCalledTimes(0);
      // The bound is exact: `[\n  "…"\n]` of 1e6 characters is built, one more is not.
      const of = (n: number) => `["${'x'.repeat(n - 8)}"]`;
      expect(prettyJson(of(1e6))).toHaveLength(1e6);
      expect(prettyJson(of(1e6 + 1)) === of(1e6 + 1)).toBe(true);
      // One stringify per primitive counted, one to build: the second text was only counted.
      expect(stringify).toHaveBeenCalledTimes(3);
    } finally {
      stringify.mockRestore();
    }
  });
});
