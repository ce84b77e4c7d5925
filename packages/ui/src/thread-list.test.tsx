import { createMemoryStorage } from '@resumable/hooks';
import {
  localThreadSource,
  THREAD_INDEX_KEY,
  ThreadIndex,
  useThreads,
} from '@resumable/hooks/threads';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ThreadList } from './thread-list.js';

/** A real index (memory records, local threads only: no server call is needed). */
async function makeIndex(titles: (string | null)[]) {
  const storage = createMemoryStorage();
  const entries = titles.map((title, i) => ({
    id: `id-${i}`,
    threadId: null,
    token: null,
    title,
    updatedAt: 1000 - i,
  }));
  await storage.update(THREAD_INDEX_KEY, () => ({ v: 1, entries }));
  let n = 0;
  const index = new ThreadIndex(
    localThreadSource({ endpoint: 'http://127.0.0.1:9/api', storage }),
    { now: () => 2000 + n, randomUUID: () => `new-${++n}` },
    null,
  );
  await index.load();
  return { index, storage };
}

function Harness(props: {
  index: ThreadIndex;
  currentId: string;
  picked: string[];
  removed: string[];
}) {
  const threads = useThreads({ index: props.index });
  return (
    <ThreadList
      threads={threads}
      currentId={props.currentId}
      onSelect={(id) => props.picked.push(id)}
      onRemoved={(id) => props.removed.push(id)}
    />
  );
}

async function setup(titles: (string | null)[]) {
  const { index, storage } = await makeIndex(titles);
  const picked: string[] = [];
  const removed: string[] = [];
  render(<Harness index={index} currentId="id-1" picked={picked} removed={removed} />);
  const titlesShown = () =>
    Array.from(document.querySelectorAll('.rc-threads__open')).map((b) => b.textContent);
  return { index, storage, picked, removed, titlesShown, user: userEvent.setup() };
}

describe('ThreadList', () => {
  it('is a labelled navigation whose every button names its conversation', async () => {
    const { titlesShown } = await setup(['Trip to Rome', 'Tax questions']);
    expect(screen.getByRole('navigation', { name: 'Conversations' })).toBeTruthy();
    expect(titlesShown()).toEqual(['Trip to Rome', 'Tax questions']);
    const names = screen
      .getAllByRole('button')
      .map((b) => b.getAttribute('aria-label') ?? b.textContent);
    expect(names).toEqual([
      'New conversation',
      'Trip to Rome',
      'Rename Trip to Rome',
      'Delete Trip to Rome',
      'Tax questions',
      'Rename Tax questions',
      'Delete Tax questions',
    ]);
    expect(screen.getByRole('button', { name: 'Tax questions' }).getAttribute('aria-current')).toBe(
      'page',
    );
  });

  it('moves between conversations with the arrow keys, Home and End; Enter picks', async () => {
    const { picked, user } = await setup(['One', 'Two', 'Three']);
    screen.getByRole('button', { name: 'One' }).focus();
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement?.textContent).toBe('Two');
    await user.keyboard('{End}');
    expect(document.activeElement?.textContent).toBe('Three');
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement?.textContent).toBe('Three');
    await user.keyboard('{Home}');
    expect(document.activeElement?.textContent).toBe('One');
    await user.keyboard('{ArrowUp}{ArrowDown}{Enter}');
    expect(picked).toEqual(['id-1']);
  });

  it('renames with F2 (Enter saves, Escape cancels) and keeps the new title', async () => {
    const { index, storage, titlesShown, user } = await setup(['One', 'Two']);
    screen.getByRole('button', { name: 'Two' }).focus();
    await user.keyboard('{F2}');
    const field = screen.getByRole('textbox', { name: 'Conversation title' }) as HTMLInputElement;
    expect(field.value).toBe('Two');
    await user.keyboard('{Escape}');
    expect(titlesShown()).toEqual(['One', 'Two']);
    await user.click(screen.getByRole('button', { name: 'Rename One' }));
    await user.clear(screen.getByRole('textbox', { name: 'Conversation title' }));
    await user.keyboard('Budget 2027{Enter}');
    await waitFor(() => expect(titlesShown()).toEqual(['Budget 2027', 'Two']));
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Budget 2027'));
    const stored = (await storage.get(THREAD_INDEX_KEY)) as { entries: { title: string }[] };
    expect(stored.entries.map((e) => e.title)).toEqual(['Budget 2027', 'Two']);
    expect(index.getState().threads.map((t) => t.title)).toEqual(['Budget 2027', 'Two']);
  });

  it('isolates the title in its confirmation in <bdi>, the group keeping its name', async () => {
    const title = 'Notes \u202etxt.exe';
    const { user } = await setup([title]);
    await user.click(screen.getByRole('button', { name: `Delete ${title}` }));
    const ask = screen.getByRole('group', {
      name: `Delete “${title}” and its messages and files?`,
    });
    const sentence = ask.querySelector('span')!;
    expect(sentence.textContent).toBe(`Delete “${title}” and its messages and files?`);
    expect([...sentence.querySelectorAll('bdi')].map((b) => b.textContent)).toEqual([title]);
  });

  it('deletes after a confirmation (Delete key or button), Cancel keeps it', async () => {
    const { removed, titlesShown, storage, user } = await setup(['One', 'Two', 'Three']);
    screen.getByRole('button', { name: 'Two' }).focus();
    await user.keyboard('{Delete}');
    const ask = screen.getByRole('group', { name: 'Delete “Two” and its messages and files?' });
    expect(document.activeElement?.textContent).toBe('Cancel');
    await user.click(ask.querySelector('button:last-child')!);
    expect(titlesShown()).toEqual(['One', 'Two', 'Three']);
    await user.click(screen.getByRole('button', { name: 'Delete Three' }));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(titlesShown()).toEqual(['One', 'Two']));
    expect(removed).toEqual(['id-2']);
    const stored = (await storage.get(THREAD_INDEX_KEY)) as { entries: { id: string }[] };
    expect(stored.entries.map((e) => e.id)).toEqual(['id-0', 'id-1']);
  });

  it('New conversation makes a draft and picks it; the draft is not listed, and a second click reuses it', async () => {
    const { index, picked, titlesShown, user } = await setup(['One']);
    await user.click(screen.getByRole('button', { name: 'New conversation' }));
    await act(async () => {});
    expect(picked).toEqual(['new-1']);
    expect(index.getState().threads.map((t) => t.id)).toEqual(['new-1', 'id-0']);
    expect(titlesShown()).toEqual(['One']);
    await user.click(screen.getByRole('button', { name: 'New conversation' }));
    await act(async () => {});
    expect(picked).toEqual(['new-1', 'new-1']);
    expect(index.getState().threads).toHaveLength(2);
    // Its first prompt names it: listed from then on.
    await act(() => index.touch('new-1', { title: 'Weekend plans' }));
    expect(titlesShown()).toEqual(['Weekend plans', 'One']);
  });

  it('lists a server thread with no title yet (joined by link), not a draft', async () => {
    const { index, titlesShown } = await setup(['One', null]);
    expect(titlesShown()).toEqual(['One']);
    await act(() => index.touch('id-1', { threadId: 'server-thread' }));
    expect(titlesShown()).toEqual(['One', 'New conversation']);
  });

  it('one Tab stop per conversation: Rename and Delete by → ← (or F2, Delete), not Tab', async () => {
    const { user } = await setup(['One', 'Two']);
    screen.getByRole('button', { name: 'New conversation' }).focus();
    const focused = () =>
      document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent;
    const stops: (string | null | undefined)[] = [];
    for (let i = 0; i < 2; i++) {
      await user.tab();
      stops.push(focused());
    }
    expect(stops).toEqual(['One', 'Two']);
    // The next Tab leaves the list (here: the page).
    await user.tab();
    expect(document.activeElement).toBe(document.body);
    screen.getByRole('button', { name: 'One' }).focus();
    expect(screen.getByRole('button', { name: 'One' }).getAttribute('aria-keyshortcuts')).toBe(
      'F2 Delete',
    );
    await user.keyboard('{ArrowRight}');
    expect(focused()).toBe('Rename One');
    await user.keyboard('{ArrowRight}');
    expect(focused()).toBe('Delete One');
    await user.keyboard('{ArrowRight}');
    expect(focused()).toBe('Delete One');
    await user.keyboard('{ArrowDown}');
    expect(focused()).toBe('Two');
    await user.keyboard('{ArrowRight}{ArrowLeft}');
    expect(focused()).toBe('Two');
    await user.keyboard('{ArrowRight}{Enter}');
    expect(
      (screen.getByRole('textbox', { name: 'Conversation title' }) as HTMLInputElement).value,
    ).toBe('Two');
  });

  it('gives each title its full text as a tooltip', async () => {
    const long = 'A conversation about the resumable stream protocol and its offsets';
    await setup([long]);
    expect(screen.getByRole('button', { name: long }).getAttribute('title')).toBe(long);
  });
});
