import { render } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { partsChunk } from './lazy-parts.js';
import { ReplyAnnouncer } from './reply-announcer.js';

// The transcript's parts chunk (tool-call cards, ‹ n / m ›, files…); its fallbacks: lazy-parts.test.tsx.
beforeAll(() => partsChunk.load());

describe('<ReplyAnnouncer>', () => {
  it('announces the start and the end of a reply once each, never per token', () => {
    const { container, rerender } = render(<ReplyAnnouncer isStreaming={false} />);
    const region = container.querySelector('[aria-live="polite"]')!;
    expect(region.getAttribute('aria-atomic')).toBe('true');
    expect(region.textContent).toBe('');

    // Every DOM change of the live region is something a screen reader may read out.
    const seen: string[] = [];
    const observer = new MutationObserver(() => {});
    observer.observe(region, { childList: true, characterData: true, subtree: true });
    const step = (streaming: boolean, status: 'running' | 'finished') => {
      rerender(<ReplyAnnouncer isStreaming={streaming} status={status} />);
      if (observer.takeRecords().length > 0) seen.push(region.textContent ?? '');
    };

    step(true, 'running');
    // 50 re-renders while tokens stream change nothing in the live region.
    for (let i = 0; i < 50; i++) step(true, 'running');
    step(false, 'finished');
    step(false, 'finished');
    observer.disconnect();
    expect(seen).toEqual(['Assistant is replying', 'Reply finished']);
  });

  it('says "Reply stopped" for a cancelled run and takes labels', () => {
    const { container, rerender } = render(
      <ReplyAnnouncer isStreaming labels={{ replyStopped: 'Gestoppt' }} />,
    );
    rerender(
      <ReplyAnnouncer
        isStreaming={false}
        status="cancelled"
        labels={{ replyStopped: 'Gestoppt' }}
      />,
    );
    expect(container.textContent).toBe('Gestoppt');
  });
});
