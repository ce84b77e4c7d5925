import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { Composer } from './composer.js';

function setup(props: Partial<Parameters<typeof Composer>[0]> = {}) {
  const sent: string[] = [];
  let stops = 0;
  const utils = render(
    <Composer
      onSend={(t) => {
        sent.push(t);
      }}
      onStop={() => {
        stops++;
      }}
      {...props}
    />,
  );
  const box = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
  return { ...utils, sent, stops: () => stops, box, user: userEvent.setup() };
}

describe('Composer', () => {
  it('sends the trimmed text on Enter and clears the textarea', async () => {
    const { sent, box, user } = setup();
    await user.type(box, '  hello world  {Enter}');
    expect(sent).toEqual(['hello world']);
    expect(box.value).toBe('');
  });

  it('adds a new line on Shift+Enter without sending', async () => {
    const { sent, box, user } = setup();
    await user.type(box, 'line one{Shift>}{Enter}{/Shift}line two');
    expect(sent).toEqual([]);
    expect(box.value).toBe('line one\nline two');
    await user.keyboard('{Enter}');
    expect(sent).toEqual(['line one\nline two']);
  });

  it('sends with the Send button and gives focus back to the textarea', async () => {
    const { sent, box, user } = setup();
    await user.type(box, 'by click');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(sent).toEqual(['by click']);
    expect(document.activeElement).toBe(box);
  });

  it('never sends blank text: Send is disabled and Enter does nothing', async () => {
    const { sent, box, user } = setup();
    expect(screen.getByRole('button', { name: 'Send' })).toHaveProperty('disabled', true);
    await user.type(box, '   {Enter}');
    expect(sent).toEqual([]);
  });

  it('does not send on the Enter that confirms an IME composition', () => {
    const { sent, box } = setup();
    fireEvent.change(box, { target: { value: 'にほんご' } });
    fireEvent.compositionStart(box);
    fireEvent.keyDown(box, { key: 'Enter', isComposing: true });
    expect(sent).toEqual([]);
    fireEvent.compositionEnd(box);
    // Safari: compositionend comes first, then a keydown with keyCode 229.
    fireEvent.keyDown(box, { key: 'Enter', keyCode: 229 });
    expect(sent).toEqual([]);
    expect(box.value).toBe('にほんご');
    fireEvent.keyDown(box, { key: 'Enter', keyCode: 13 });
    expect(sent).toEqual(['にほんご']);
  });

  it('turns Send into Stop while a reply streams; Stop calls onStop and Enter does not send', async () => {
    const { sent, stops, box, user, rerender } = setup({ isStreaming: true });
    expect(screen.queryByRole('button', { name: 'Send' })).toBeNull();
    await user.type(box, 'next question{Enter}');
    expect(sent).toEqual([]);
    expect(box.value).toBe('next question');
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect(stops()).toBe(1);
    expect(document.activeElement).toBe(box);
    rerender(<Composer onSend={(t) => void sent.push(t)} isStreaming={false} />);
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(sent).toEqual(['next question']);
  });

  it('still sends while offline and says the message will go out when online', async () => {
    const { sent, box, user } = setup({ offline: true });
    const hint = screen.getByText('Messages you send now will go out when you are back online.');
    expect(box.getAttribute('aria-describedby')).toBe(hint.id);
    await user.type(box, 'queued{Enter}');
    expect(sent).toEqual(['queued']);
  });

  it('says, before it is sent, that a prompt cancels the open approval or question', async () => {
    const { sent, box, user, rerender } = setup({ openInterrupts: 1 });
    const hint = () => document.querySelector('[data-part="cancels-interrupts"]');
    // Nothing typed: nothing to warn about.
    expect(hint()).toBeNull();
    await user.type(box, 'New question');
    expect(hint()!.textContent).toBe(
      'Sending this cancels the request above: answer it first to keep it.',
    );
    expect(box.getAttribute('aria-describedby')).toBe(hint()!.id);
    rerender(<Composer onSend={(t) => void sent.push(t)} openInterrupts={2} offline />);
    expect(hint()!.textContent).toBe(
      'Sending this cancels the 2 requests above: answer them first to keep them.',
    );
    expect(box.getAttribute('aria-describedby')!.split(' ')).toHaveLength(2);
    rerender(<Composer onSend={(t) => void sent.push(t)} openInterrupts={0} />);
    expect(hint()).toBeNull();
    expect(box.getAttribute('aria-describedby')).toBeNull();
    rerender(
      <Composer
        onSend={(t) => void sent.push(t)}
        openInterrupts={1}
        labels={{ promptCancelsInterrupts: (n) => `Bricht ${n} ab` }}
      />,
    );
    expect(hint()!.textContent).toBe('Bricht 1 ab');
    await user.type(box, '{Enter}');
    expect(sent).toEqual(['New question']);
    expect(hint()).toBeNull();
  });

  it('takes every visible string from labels', () => {
    const { rerender } = render(
      <Composer
        onSend={() => {}}
        labels={{
          messageInput: 'Nachricht',
          send: 'Senden',
          placeholder: 'Schreiben…',
          offlineHint: 'Offline',
        }}
        offline
      />,
    );
    const box = screen.getByRole('textbox', { name: 'Nachricht' });
    expect(box.getAttribute('placeholder')).toBe('Schreiben…');
    expect(screen.getByRole('button', { name: 'Senden' })).toBeTruthy();
    expect(screen.getByText('Offline')).toBeTruthy();
    rerender(<Composer onSend={() => {}} isStreaming labels={{ stop: 'Anhalten' }} />);
    expect(screen.getByRole('button', { name: 'Anhalten' })).toBeTruthy();
  });
});
