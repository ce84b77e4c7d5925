import { describe, expect, it } from 'vitest';
import { fileTypeOf, sniff, sniffStream } from './sniff.js';

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

describe('sniffStream', () => {
  async function* pieces(...parts: Uint8Array[]) {
    for (const part of parts) yield part;
  }
  /** Its type and bytes, or the 415 its pieces threw. */
  const streamed = async (parts: Uint8Array[], declared: string | null) => {
    const { mimeType, chunks } = await sniffStream(pieces(...parts), declared);
    const out: number[] = [];
    try {
      for await (const chunk of chunks) out.push(...chunk);
    } catch (error) {
      return { mimeType, refused: (error as { code?: string }).code };
    }
    return { mimeType, bytes: out };
  };

  it.each([
    ['png', bytes('\x89PNG\r\n\x1a\n', [0, 1, 2, 3, 4, 5, 6]), 'image/png'],
    ['text', new TextEncoder().encode('# été ✓ 😀\n'), 'text/markdown'],
    ['bad utf-8 late', bytes('hello world, ', [0xc3, 0x28]), 'text/markdown'],
    ['a control late', bytes('hello world, ', [0x01]), null],
    ['cut in a character', bytes('hello world ', [0xe2, 0x9c]), null],
  ])(
    '%s: split at every byte, the same type as fileTypeOf, or a 415 for what is not text',
    async (_name, whole, declared) => {
      const type = fileTypeOf(whole, declared);
      for (let at = 0; at <= whole.length; at++) {
        const result = await streamed([whole.slice(0, at), whole.slice(at)], declared);
        if (type === null && result.mimeType !== null) {
          // Told from the start as text: refused once the bytes say otherwise.
          expect([at, result]).toEqual([
            at,
            { mimeType: result.mimeType, refused: 'unsupported_media_type' },
          ]);
        } else {
          expect([at, result]).toEqual([at, { mimeType: type, bytes: [...whole] }]);
        }
      }
    },
  );
});
