import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { useState } from 'react';
import { beforeAll, describe, expect, it } from 'vitest';
import { assistant, user } from '../test/fixtures.js';
import type { BranchInfo, ChatMessage } from './controller-types.js';
import { editorChunk } from './lazy-editor.js';
import { partsChunk } from './lazy-parts.js';
import { Message } from './message.js';
import { MessageList } from './message-list.js';

const row = (container: HTMLElement, id: string) =>
  container.querySelector(`[data-message-id="${id}"]`) as HTMLElement;

const branch = (index: number, ids: string[]): BranchInfo => ({
  index,
  count: ids.length,
  siblingIds: ids,
});

// The part loads lazily (src/lazy-parts.test.tsx checks that); here it is already there.
beforeAll(() => editorChunk.load());
// The transcript's parts chunk (tool-call cards, ‹ n / m ›, files…); its fallbacks: lazy-parts.test.tsx.
beforeAll(() => partsChunk.load());

describe('message actions', () => {
  it('show on hover and on keyboard focus; regenerate names the answer', async () => {
    const regenerated: string[] = [];
    const { container } = render(
      <>
        <button type="button">before</button>
        <Message
          message={assistant('a1', 'Hello there')}
          onRegenerate={(id) => regenerated.push(id)}
        />
      </>,
    );
    const message = row(container, 'a1');
    expect(message.getAttribute('data-active')).toBeNull();
    fireEvent.mouseEnter(message);
    expect(message.getAttribute('data-active')).toBe('true');
    fireEvent.mouseLeave(message);
    expect(message.getAttribute('data-active')).toBeNull();

    const u = userEvent.setup();
    screen.getByRole('button', { name: 'before' }).focus();
    await u.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Copy message' }));
    expect(message.getAttribute('data-active')).toBe('true');
    await u.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Regenerate' }));
    await u.keyboard('{Enter}');
    await act(async () => {});
    expect(regenerated).toEqual(['a1']);
    await u.tab({ shift: true });
    await u.tab({ shift: true });
    expect(message.getAttribute('data-active')).toBeNull();
  });

  it('no regenerate on a prompt or while streaming; no edit on an answer or a queued prompt', () => {
    const noop = () => {};
    render(
      <>
        <Message message={user('u1', 'Hi')} onRegenerate={noop} onEdit={noop} />
        <Message
          message={assistant('a1', 'Hel', { streaming: true })}
          onRegenerate={noop}
          onEdit={noop}
        />
        <Message message={user('u2', 'later', { pending: 'queued' })} onEdit={noop} />
      </>,
    );
    expect(screen.queryAllByRole('button', { name: 'Regenerate' })).toHaveLength(0);
    expect(screen.queryAllByRole('button', { name: 'Copy message' })).toHaveLength(0);
    expect(screen.getAllByRole('button', { name: 'Edit message' })).toHaveLength(1);
  });

  it('inline editor: Esc cancels, Cancel cancels, Ctrl+Enter and Save send the new text', async () => {
    const edits: [string, string][] = [];
    const { container } = render(
      <Message
        message={user('u1', 'What is a cursor?')}
        onEdit={(id, text) => edits.push([id, text])}
      />,
    );
    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: 'Edit message' }));
    const box = screen.getByRole('textbox', { name: 'Edit your message' }) as HTMLTextAreaElement;
    expect(box.value).toBe('What is a cursor?');
    expect(document.activeElement).toBe(box);
    await u.type(box, ' Really');
    await u.keyboard('{Escape}');
    expect(screen.queryByRole('textbox', { name: 'Edit your message' })).toBeNull();
    expect(row(container, 'u1').querySelector('[data-part="text"]')!.textContent).toBe(
      'What is a cursor?',
    );
    await act(() => new Promise((r) => setTimeout(r, 5)));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Edit message' }));

    await u.click(screen.getByRole('button', { name: 'Edit message' }));
    await u.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('textbox')).toBeNull();

    await u.click(screen.getByRole('button', { name: 'Edit message' }));
    const again = screen.getByRole('textbox', { name: 'Edit your message' });
    await u.clear(again);
    await u.type(again, '  What is an offset?  ');
    await u.keyboard('{Control>}{Enter}{/Control}');
    await act(async () => {});
    expect(screen.queryByRole('textbox')).toBeNull();

    await u.click(screen.getByRole('button', { name: 'Edit message' }));
    const third = screen.getByRole('textbox', { name: 'Edit your message' });
    await u.clear(third);
    expect((screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement).disabled).toBe(true);
    await u.type(third, 'Why resume?');
    await u.click(screen.getByRole('button', { name: 'Save' }));
    await act(async () => {});
    expect(edits).toEqual([
      ['u1', 'What is an offset?'],
      ['u1', 'Why resume?'],
    ]);
  });

  it('Esc in the editor does not reach the chat (its Esc stops a reply)', async () => {
    const seen: string[] = [];
    render(
      // biome-ignore lint/a11y/noStaticElementInteractions: listens like <ResumableChatView>
      <div onKeyDown={(e) => !e.defaultPrevented && seen.push(e.key)}>
        <Message message={user('u1', 'Hi')} onEdit={() => {}} />
      </div>,
    );
    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: 'Edit message' }));
    await u.keyboard('{Escape}');
    expect(seen).toEqual([]);
  });
});

const versions = ['a1', 'a2', 'a3'];

/** A transcript whose answer has three versions, switched by its ‹ › like a controller. */
function ThreeVersions() {
  const [index, setIndex] = useState(2);
  const id = versions[index]!;
  const messages: ChatMessage[] = [
    user('u1', 'Hi'),
    assistant(id, `Answer ${index + 1}`, { branch: branch(index, versions) } as never),
  ];
  return <MessageList messages={messages} onSwitchBranch={(_id, to) => setIndex(to)} />;
}

describe('‹ n / m › branch navigation', () => {
  it('labelled buttons and arrow keys; the ends stay focusable and do nothing', async () => {
    const switched: [string, number][] = [];
    render(
      <Message
        message={assistant('a2', 'Second', { branch: branch(1, ['a1', 'a2', 'a3']) } as never)}
        onSwitchBranch={(id, index) => switched.push([id, index])}
      />,
    );
    const group = screen.getByRole('group', { name: 'Version 2 of 3' });
    expect(group.textContent).toBe('2 / 3');
    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: 'Previous version' }));
    await u.click(screen.getByRole('button', { name: 'Next version' }));
    await u.keyboard('{ArrowLeft}');
    await u.keyboard('{ArrowRight}');
    await u.keyboard('{Home}');
    await u.keyboard('{End}');
    await act(async () => {});
    expect(switched).toEqual([
      ['a2', 0],
      ['a2', 2],
      ['a2', 0],
      ['a2', 2],
      ['a2', 0],
      ['a2', 2],
    ]);
  });

  it('in the list, switching keeps the row and the focus on its button', async () => {
    const { container } = render(<ThreeVersions />);
    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: 'Previous version' }));
    await act(async () => {});
    expect(row(container, 'a2')).not.toBeNull();
    const previous = screen.getByRole('button', { name: 'Previous version' });
    expect(document.activeElement).toBe(previous);
    await u.keyboard('{ArrowLeft}');
    await act(async () => {});
    expect(screen.getByRole('group', { name: 'Version 1 of 3' }).textContent).toBe('1 / 3');
    expect(
      row(container, 'a1')!.querySelector('[data-part="text"]')!.getAttribute('data-text'),
    ).toBe('Answer 1');
    expect(document.activeElement).toBe(previous);
    expect(previous.getAttribute('aria-disabled')).toBe('true');
    await u.keyboard('{ArrowLeft}');
    await act(async () => {});
    expect(row(container, 'a1')).not.toBeNull();
  });

  it('every word comes from labels', () => {
    render(
      <Message
        message={assistant('a2', 'Zweite', { branch: branch(1, ['a1', 'a2']) } as never)}
        onRegenerate={() => {}}
        onSwitchBranch={() => {}}
        labels={{
          regenerate: 'Neu erzeugen',
          previousBranch: 'Vorherige Version',
          nextBranch: 'Nächste Version',
          branchNav: (n, m) => `Version ${n} von ${m}`,
          branchPosition: (n, m) => `${n} von ${m}`,
        }}
      />,
    );
    expect(screen.getByRole('group', { name: 'Version 2 von 2' }).textContent).toBe('2 von 2');
    expect(screen.getByRole('button', { name: 'Neu erzeugen' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Vorherige Version' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Nächste Version' })).toBeTruthy();
  });
});

describe('accessibility', () => {
  it('no axe violations with versions, tools and an open editor', async () => {
    const noop = () => {};
    const { container } = render(
      <MessageList
        messages={[
          user('u1', 'Hi', { branch: branch(0, ['u1', 'u9']) } as never),
          assistant('a2', 'Second', { branch: branch(1, ['a1', 'a2']) } as never),
          user('u2', 'More'),
        ]}
        onRegenerate={noop}
        onEdit={noop}
        onSwitchBranch={noop}
      />,
    );
    const u = userEvent.setup();
    await u.click(screen.getAllByRole('button', { name: 'Edit message' })[1]!);
    const result = await axe.run(container, { rules: { 'color-contrast': { enabled: false } } });
    expect(result.violations.map((v) => v.id)).toEqual([]);
  });
});
