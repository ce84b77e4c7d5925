import { render, screen } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { approval } from '../test/fixtures.js';
import type { ChatMessage } from './controller-types.js';
import { cardsChunk, InterruptCard } from './interrupts/interrupt-card.js';
import { partsChunk } from './lazy-parts.js';
import { MessageFiles } from './message-files.js';

beforeAll(() => cardsChunk.load());
// The transcript's parts chunk (tool-call cards, ‹ n / m ›, files…); its fallbacks: lazy-parts.test.tsx.
beforeAll(() => partsChunk.load());

// Review of isolateName (b75e4ad): a label is a function the user supplies (a translation); the
// text shown must be what that function returns for the name.
describe('names in <bdi> review', () => {
  // A label that shortens long names, as a narrow layout's translation may.
  const short = (name: string) => (name.length > 12 ? `${name.slice(0, 11)}…` : name);
  const fileLink = (name: string, size: string) => `${short(name)} (${size})`;

  it('a file chip shows what the fileLink label returns for the name', () => {
    const name = 'quarterly-report-final-v3.pdf';
    const message = {
      id: 'u1',
      role: 'user',
      content: [
        {
          type: 'document',
          source: { type: 'url', value: '/api/threads/t1/files/f2', mimeType: 'application/pdf' },
          metadata: { fileId: 'f2', name, size: 2048 },
        },
      ],
    } as unknown as ChatMessage;
    render(<MessageFiles message={message} labels={{ fileLink }} />);
    // fileLink(name, '2 KB') is 'quarterly-r… (2 KB)'; shown: the whole name (the label was
    // called with a one-character mark, which it did not shorten).
    expect(screen.getByRole('link').textContent).toBe('quarterly-r… (2 KB)');
  });

  it("an approval card's title is what approvalTitle returns (a label naming tools in words)", () => {
    // A translation that names known tools in words, the rest by their name.
    const words: Record<string, string> = { delete_file: 'delete a file' };
    const approvalTitle = (tool: string) => `Allow me to ${words[tool] ?? tool}?`;
    render(
      <InterruptCard
        interrupt={approval}
        labels={{ approvalTitle }}
        onResolve={() => {}}
        onCancel={() => {}}
      />,
    );
    // approvalTitle('delete_file') is 'Allow me to delete a file?'; called with the mark it took
    // the other branch: shown (and, by aria-labelledby, the region's name) 'Allow me to delete_file?'.
    const card = screen.getByRole('region');
    expect(card.querySelector('.rc-interrupt__title')!.textContent).toBe(
      'Allow me to delete a file?',
    );
  });
});
