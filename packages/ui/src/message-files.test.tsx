import { render, screen } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from './controller-types.js';
import { partsChunk } from './lazy-parts.js';
import { FileAccessContext, fileSrc, messageFiles } from './message-file-parts.js';
import { MessageFiles } from './message-files.js';

// The transcript's parts chunk (tool-call cards, ‹ n / m ›, files…); its fallbacks: lazy-parts.test.tsx.
beforeAll(() => partsChunk.load());

const prompt = (content: unknown): ChatMessage =>
  ({ id: 'u1', role: 'user', content }) as unknown as ChatMessage;

const image = (value: string, name = 'cat.png') => ({
  type: 'image',
  source: { type: 'url', value, mimeType: 'image/png' },
  metadata: { fileId: 'f1', name, size: 48_213 },
});

describe('MessageFiles', () => {
  it('shows images and file chips (name, size) with the token on the API’s own files only', () => {
    const message = prompt([
      { type: 'text', text: 'look' },
      image('/api/threads/t1/files/f1'),
      {
        type: 'document',
        source: { type: 'url', value: '/api/threads/t1/files/f2', mimeType: 'application/pdf' },
        metadata: { fileId: 'f2', name: 'report.pdf', size: 2_500_000 },
      },
      image('https://evil.example/x.png', 'elsewhere.png'),
      image('javascript:alert(1)', 'script.png'),
    ]);
    render(
      <FileAccessContext.Provider value={{ token: 's3cr/t' }}>
        <MessageFiles message={message} />
      </FileAccessContext.Provider>,
    );
    const images = screen.getAllByRole('img') as HTMLImageElement[];
    expect(images.map((img) => [img.alt, img.getAttribute('src')])).toEqual([
      ['cat.png', '/api/threads/t1/files/f1?token=s3cr%2Ft'],
      ['elsewhere.png', 'https://evil.example/x.png'],
    ]);
    const chip = screen.getByRole('link', { name: 'report.pdf (2.4 MB)' });
    expect(chip.getAttribute('href')).toBe('/api/threads/t1/files/f2?token=s3cr%2Ft');
  });

  it('renders nothing for a text-only message', () => {
    const { container } = render(<MessageFiles message={prompt('just text')} />);
    expect(container.innerHTML).toBe('');
    expect(messageFiles(prompt([{ type: 'text', text: 'x' }]))).toEqual([]);
  });

  it('resolves paths against an API on another origin, and gives the token only there', () => {
    const api = { token: 'tok', origin: 'https://api.example.com' };
    expect(fileSrc('/api/threads/t/files/f', api)).toBe(
      'https://api.example.com/api/threads/t/files/f?token=tok',
    );
    expect(fileSrc('https://api.example.com/api/threads/t/files/f', api)).toBe(
      'https://api.example.com/api/threads/t/files/f?token=tok',
    );
    expect(fileSrc('https://other.example.com/api/threads/t/files/f', api)).toBe(
      'https://other.example.com/api/threads/t/files/f',
    );
    expect(fileSrc('//other.example.com/x.png', api)).toBe('//other.example.com/x.png');
    expect(fileSrc('/api/threads/t/files/f', { token: null })).toBe('/api/threads/t/files/f');
  });

  it('isolates a file name in <bdi>: "(size)" after it cannot be reversed, the name unchanged', () => {
    const name = 'invoice\u202efdp.exe';
    const file = (size: number | undefined) => ({
      type: 'document',
      source: { type: 'url', value: '/api/threads/t1/files/f2', mimeType: 'application/pdf' },
      metadata: { fileId: 'f2', name, ...(size === undefined ? {} : { size }) },
    });
    render(<MessageFiles message={prompt([file(2048), file(undefined)])} />);
    const chips = screen.getAllByRole('link');
    expect(chips.map((c) => c.textContent)).toEqual([`${name} (2 KB)`, name]);
    expect(screen.getByRole('link', { name: `${name} (2 KB)` })).toBe(chips[0]);
    for (const chip of chips) {
      expect([...chip.querySelectorAll('bdi')].map((b) => b.textContent)).toEqual([name]);
    }
  });
});
