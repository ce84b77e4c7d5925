import { describe, expect, it } from 'vitest';
import { fileTypeOf, sniff } from './sniff.js';

const bytes = (...parts: Array<string | number[]>) =>
  new Uint8Array(
    parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)),
  );

describe('sniff', () => {
  it.each([
    [bytes('\x89PNG\r\n\x1a\n', [0, 0]), 'image/png'],
    [bytes([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
    [bytes('GIF89a...'), 'image/gif'],
    [bytes('RIFF', [1, 2, 3, 4], 'WEBPVP8 '), 'image/webp'],
    [bytes('%PDF-1.7\n'), 'application/pdf'],
    [new TextEncoder().encode('# Titre\n\nété ✓\n'), 'text'],
    [bytes([0xc3, 0x28]), null],
    [bytes('MZ', [0x90, 0]), null],
    [bytes('RIFF', [1, 2, 3, 4], 'WAVE'), null],
  ])('%#: %s', (input, type) => {
    expect(sniff(input)).toBe(type);
  });

  it('checks the declaration: binary types must match, text takes plain or markdown', () => {
    const png = bytes('\x89PNG\r\n\x1a\n');
    const text = bytes('hello');
    expect(fileTypeOf(png, 'image/png')).toBe('image/png');
    expect(fileTypeOf(png, 'image/jpeg')).toBe(null);
    expect(fileTypeOf(png, 'application/octet-stream')).toBe('image/png');
    expect(fileTypeOf(text, 'text/markdown')).toBe('text/markdown');
    expect(fileTypeOf(text, null)).toBe('text/plain');
    expect(fileTypeOf(text, 'image/png')).toBe(null);
    expect(fileTypeOf(bytes([0, 1, 2]), 'application/octet-stream')).toBe(null);
  });
});
