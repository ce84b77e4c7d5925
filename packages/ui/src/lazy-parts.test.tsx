// The parts that load lazily: what shows before their chunk is there, and that they come.
// One file, in this order: nothing here loads a chunk before the test that checks its fallback.
import type { AttachmentsController } from '@resumable/hooks/attachments';
import { ResumableError } from '@resumable/protocol';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import axe from 'axe-core';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { approval, assistant, controller, user } from '../test/fixtures.js';
import { DEFAULT_ATTACHMENT_LABELS } from './attachment-labels.js';
import { InterruptCard } from './interrupts/interrupt-card.js';
import { AttachmentTray } from './lazy-tray.js';
import { Message } from './message.js';
import { ReplyAnnouncer } from './reply-announcer.js';
import { ResumableChatView } from './resumable-chat-view.js';
import { ToolCall } from './tool-call.js';

const noop = () => {};

// A transcript's first frame waiting for them: lazy-parts-wait.test.tsx (a page of its own).
describe("the transcript's parts (tool-call cards, ‹ n / m ›, files)", () => {
  const call = {
    id: 'c1',
    type: 'function' as const,
    function: { name: 'search_docs', arguments: '{"q":"offsets"}' },
  };
  it('a drawn-alone part shows nothing until its chunk is there; the live region is there at once, empty', async () => {
    const { container } = render(
      <>
        <ToolCall call={call} />
        <ReplyAnnouncer isStreaming={false} />
      </>,
    );
    expect(container.innerHTML).toBe(
      '<div class="rc-sr-only" aria-live="polite" aria-atomic="true" data-part="announcer"></div>',
    );
    const region = container.querySelector('[data-part="announcer"]');
    // The chunk comes (this render asked for it): the card, and the same live region.
    const card = await waitFor(() => {
      const found = container.querySelector('[data-tool-call-id="c1"]');
      expect(found).not.toBeNull();
      return found!;
    });
    expect(card.getAttribute('data-tool-status')).toBe('running');
    expect(card.querySelector('summary')?.textContent).toBe('search_docsRunning');
    expect(container.querySelector('[data-part="announcer"]')).toBe(region);
    expect(region?.textContent).toBe('');
  });
});

describe('an open interrupt card', () => {
  it('first shows its frame, title and arguments (busy, not yet the card), then the card, focused', async () => {
    const { container } = render(
      <InterruptCard interrupt={approval} onResolve={noop} onCancel={noop} />,
    );
    const placeholder = container.querySelector('[data-part="interrupt-placeholder"]');
    expect(placeholder?.getAttribute('aria-busy')).toBe('true');
    expect(placeholder?.className).toBe(
      'rc-interrupt rc-interrupt--approval rc-interrupt--placeholder',
    );
    expect(placeholder?.textContent).toBe(
      'Allow delete_file?Delete notes/old-draft.md?Arguments{\n  "path": "notes/old-draft.md"\n}',
    );
    // Not the card yet: no DOM contract, no region, no buttons, no focus taken.
    expect(container.querySelector('[data-interrupt-id]')).toBeNull();
    expect(screen.queryByRole('region')).toBeNull();
    expect(screen.queryByRole('button')).toBeNull();

    const card = await screen.findByRole('region', { name: 'Allow delete_file?' });
    expect(card.getAttribute('data-interrupt-id')).toBe('i1');
    expect(document.activeElement).toBe(card);
    expect(screen.getAllByRole('button').map((b) => b.textContent)).toEqual(['Approve', 'Deny']);
    expect(container.querySelector('[data-part="interrupt-placeholder"]')).toBeNull();
  });

  it('renders at once, with no placeholder frame, once its chunk is there', () => {
    const { container } = render(
      <InterruptCard interrupt={{ ...approval, id: 'i2' }} onResolve={noop} onCancel={noop} />,
    );
    expect(screen.getByRole('region', { name: 'Allow delete_file?' })).toBeTruthy();
    expect(container.querySelector('[data-part="interrupt-placeholder"]')).toBeNull();
  });

  it('in server HTML is the placeholder (no Suspense error template, axe-clean), and hydrates into the card with no recoverable error', async () => {
    const { controller: c } = controller({
      messages: [user('u1', 'Tidy my notes'), assistant('a1', 'It needs your approval.')],
      interrupts: [approval],
    });
    const html = renderToString(<ResumableChatView controller={c} />);
    expect(html).toContain(
      '<div class="rc-interrupt rc-interrupt--approval rc-interrupt--placeholder" aria-busy="true" data-part="interrupt-placeholder"><p class="rc-interrupt__title">Allow delete_file?</p>',
    );
    expect(html).toContain('It needs your approval.');
    expect(html).not.toContain('<template');
    expect(html).not.toContain('<!--$');

    const root = document.createElement('div');
    root.innerHTML = html;
    document.body.append(root);
    // The server's page, before any script: the placeholder leaves it axe-clean.
    const audit = await axe.run(root, { rules: { 'color-contrast': { enabled: false } } });
    expect(audit.violations.map((v) => v.id)).toEqual([]);
    const errors: unknown[] = [];
    let hydrated: ReturnType<typeof hydrateRoot> | undefined;
    await act(async () => {
      hydrated = hydrateRoot(root, <ResumableChatView controller={c} />, {
        onRecoverableError: (e) => errors.push(e),
      });
    });
    expect(errors).toEqual([]);
    expect(root.querySelector('section[data-interrupt-id="i1"]')).not.toBeNull();
    expect(root.querySelector('[data-part="interrupt-placeholder"]')).toBeNull();
    // Unmounted, not just detached: the list's lazy scroll chunk may arrive after this file's
    // window is gone, and a mounted root would render it there ("window is not defined").
    act(() => hydrated?.unmount());
    root.remove();
  });
});

describe('the inline editor', () => {
  it('keeps the prompt as it is until its chunk is there, then opens with the text, focused', async () => {
    const { container } = render(
      <Message message={user('u1', 'Hello there')} onEdit={noop} onSwitchBranch={noop} />,
    );
    // A click with no hover or focus first (a touch): the chunk is fetched only now.
    fireEvent.click(screen.getByRole('button', { name: 'Edit message' }));
    expect(container.querySelector('[data-part="text"]')?.textContent).toBe('Hello there');
    expect(screen.queryByRole('textbox')).toBeNull();

    const box = await screen.findByRole<HTMLTextAreaElement>('textbox', {
      name: 'Edit your message',
    });
    expect(box.value).toBe('Hello there');
    expect(document.activeElement).toBe(box);
    expect(screen.getAllByRole('button').map((b) => b.textContent)).toEqual(['Cancel', 'Save']);
  });
});

describe('the attachment tray', () => {
  it('shows nothing until its chunk is there, then the refusal and the file with its buttons', async () => {
    const file = new Blob(['%PDF'], { type: 'application/pdf' });
    const attachments: AttachmentsController = {
      enabled: true,
      files: [
        {
          id: 'f1',
          name: 'report.pdf',
          size: 4,
          type: 'application/pdf',
          file,
          phase: 'uploaded',
          loaded: 4,
          error: null,
          attachment: null,
        },
      ],
      rejected: [
        {
          name: 'big.bin',
          size: 11 * 1024 * 1024,
          reason: 'file_too_large',
          limit: 10 * 1024 * 1024,
          error: new ResumableError('payload_too_large', 'big.bin is over 10 MiB'),
        },
      ],
      status: 'ready',
      add: () => [],
      remove: noop,
      retry: noop,
      clear: noop,
      attachments: () => [],
    };
    const { container } = render(
      <AttachmentTray attachments={attachments} labels={DEFAULT_ATTACHMENT_LABELS} />,
    );
    expect(container.innerHTML).toBe('');

    const list = await screen.findByRole('list', { name: 'Attachments' });
    expect(list.textContent).toBe('report.pdf4 B');
    expect(screen.getByRole('alert').textContent).toBe(
      'big.bin is too large: files may be at most 10 MB.',
    );
    expect(screen.getByRole('button', { name: 'Remove report.pdf' })).toBeTruthy();
  });
});
