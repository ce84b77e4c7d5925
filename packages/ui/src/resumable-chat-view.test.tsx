import { ResumableError, RUN_ERROR_CODES } from '@resumable/protocol';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { describe, expect, it } from 'vitest';
import { assistant, connection, controller, user } from '../test/fixtures.js';
import type { ChatMessage } from './controller-types.js';
import { ResumableChatView } from './resumable-chat-view.js';

const THREAD: ChatMessage[] = [
  user('u1', 'What is the weather in Paris?'),
  { id: 'r1', role: 'reasoning', content: 'The user wants weather.' } as ChatMessage,
  assistant('a1', 'Let me check.', {
    toolCalls: [
      { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
    ],
  }),
  { id: 't1', role: 'tool', toolCallId: 'c1', content: '{"temp":21}' } as ChatMessage,
  assistant(
    'a2',
    'It is **21 °C**.\n\n```js\nconsole.log(21)\n```\n\n[source](https://example.com)',
  ),
  user('u2', 'And tomorrow?'),
  assistant('a3', 'Tomorrow it will', { ended: 'stopped' }),
  user('u3', 'offline one', { pending: 'queued' }),
];

async function violations(root: HTMLElement) {
  const result = await axe.run(root, {
    // jsdom does no layout or paint: contrast cannot be computed there (the screenshots cover it).
    rules: { 'color-contrast': { enabled: false } },
  });
  return result.violations.map(
    (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}

describe('<ResumableChatView>', () => {
  it('wires the controller into the parts: send, stop, retry, load older', async () => {
    const ue = userEvent.setup();
    const idle = controller({ messages: THREAD, hasOlder: true });
    const { rerender } = render(<ResumableChatView controller={idle.controller} />);
    await ue.type(screen.getByRole('textbox', { name: 'Message' }), 'Hello{Enter}');
    expect(idle.calls.send).toEqual(['Hello']);
    await ue.click(screen.getByRole('button', { name: 'Load older messages' }));
    expect(idle.calls.loadOlder).toBe(1);

    const streaming = controller({
      messages: [...THREAD, assistant('a4', 'Sure', { streaming: true })],
      isStreaming: true,
      status: 'running',
      connection: connection({ phase: 'streaming' }),
    });
    rerender(<ResumableChatView controller={streaming.controller} />);
    await ue.click(screen.getByRole('button', { name: 'Stop' }));
    expect(streaming.calls.stop).toBe(1);
    // Esc stops too (focus is back in the composer after the click).
    await ue.keyboard('{Escape}');
    expect(streaming.calls.stop).toBe(2);
    expect(screen.getByText('Assistant is replying')).toBeTruthy();

    const failed = controller({
      messages: THREAD,
      status: 'error',
      error: new ResumableError('agent_lost', 'lost'),
      connection: connection({ phase: 'error' }),
    });
    rerender(<ResumableChatView controller={failed.controller} />);
    expect(screen.getByRole('alert').textContent).toBe(
      'The assistant stopped unexpectedly (run lost). The partial answer is kept.Retry',
    );
    // A lost run cannot be reconnected to: Retry asks the last question again.
    await ue.click(screen.getByRole('button', { name: 'Retry' }));
    expect(failed.calls).toEqual({ send: ['offline one'], stop: 0, retry: 0, loadOlder: 0 });

    const down = controller({
      messages: [...THREAD, user('u9', 'Are you there?', { pending: 'queued' })],
      outbox: [{ runId: 'r9', text: 'Are you there?', createdAt: 0, messageId: 'u9' }],
      connection: connection({ phase: 'finished' }),
    });
    rerender(<ResumableChatView controller={down.controller} graceMs={0} />);
    expect(screen.getByRole('status').textContent).toBe('Can’t reach the serverRetry now');
    await ue.click(screen.getByRole('button', { name: 'Retry now' }));
    expect(down.calls.retry).toBe(1);
  });

  it('Retry after each run outcome: asks again, except store_unavailable (a 503 too) reconnects', async () => {
    const ue = userEvent.setup();
    // A Record over the protocol's codes: a new run outcome fails typecheck until decided here.
    const expected: Record<(typeof RUN_ERROR_CODES)[number], 'send' | 'retry'> = {
      agent_lost: 'send',
      agent_failed: 'send',
      upstream_failed: 'send',
      agent_timeout: 'send',
      run_timeout: 'send',
      run_too_large: 'send',
      store_unavailable: 'retry',
    };
    const seen: Record<string, string> = {};
    for (const code of RUN_ERROR_CODES) {
      const failed = controller({
        messages: [user('u1', 'Ask once more'), assistant('a1', 'Half')],
        status: 'error',
        error: new ResumableError(code, code),
        connection: connection({ phase: 'error' }),
      });
      const { unmount } = render(<ResumableChatView controller={failed.controller} />);
      await ue.click(screen.getByRole('button', { name: 'Retry' }));
      const { send, retry } = failed.calls;
      seen[code] =
        send.length === 1 && send[0] === 'Ask once more' && retry === 0
          ? 'send'
          : retry === 1 && send.length === 0
            ? 'retry'
            : JSON.stringify(failed.calls);
      unmount();
    }
    expect(seen).toEqual(expected);
  });

  it('shows neither the empty state nor anything else until the record is read', () => {
    const { controller: c } = controller();
    const { rerender, container } = render(
      <ResumableChatView controller={{ ...c, hydrated: false }} />,
    );
    expect(container.querySelector('.rc-message-list__content')!.textContent).toBe('');
    rerender(<ResumableChatView controller={{ ...c, hydrated: true }} />);
    expect(container.querySelector('.rc-message-list__content')!.textContent).toBe(
      'Send a message to start the conversation.',
    );
  });

  it('passes labels and className down, and sets data-theme', () => {
    const { controller: c } = controller({ connection: connection({ phase: 'offline' }) });
    const { container } = render(
      <ResumableChatView
        controller={c}
        className="mine"
        theme="dark"
        labels={{
          messageInput: 'Mensaje',
          send: 'Enviar',
          transcript: 'Conversación',
          offlineHint: 'Sin conexión',
        }}
      />,
    );
    const root = container.firstElementChild!;
    expect(root.className).toBe('rc-root rc-chat mine');
    expect(root.getAttribute('data-theme')).toBe('dark');
    expect(screen.getByRole('textbox', { name: 'Mensaje' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Enviar' })).toBeTruthy();
    expect(screen.getByRole('log', { name: 'Conversación' })).toBeTruthy();
    expect(screen.getByText('Sin conexión')).toBeTruthy();
  });

  it('runs a live axe check (a nameless button is caught)', async () => {
    const { container } = render(<button type="button" />);
    expect(await violations(container)).toEqual(['button-name: button']);
  });

  it('has the roles and names of the contract and no axe violations', async () => {
    const { controller: c } = controller({
      messages: THREAD,
      hasOlder: true,
      connection: connection({ phase: 'reconnecting', attempt: 2, nextRetryAt: null }),
      status: 'running',
    });
    const { container } = render(<ResumableChatView controller={c} graceMs={0} />);
    expect(screen.getByRole('log', { name: 'Conversation' })).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe('Reconnecting (attempt 2)…Retry now');
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copy code' })).toBeTruthy();
    expect(await violations(container)).toEqual([]);
  });

  it('has no axe violations while streaming with an error shown', async () => {
    const { controller: c } = controller({
      messages: [...THREAD, assistant('a4', 'Partial', { streaming: true })],
      isStreaming: true,
      status: 'running',
      error: new ResumableError('network', 'fetch failed'),
      connection: connection({ phase: 'offline' }),
    });
    const { container } = render(<ResumableChatView controller={c} />);
    expect(screen.getByRole('button', { name: 'Stop' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toBe('Can’t reach the server.Retry');
    expect(await violations(container)).toEqual([]);
  });
});

describe('<ResumableChatView> failures', () => {
  it('leaves no unhandled rejection when send, stop or loadOlder fail (the controller shows them)', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const ue = userEvent.setup();
      const fail = async () => {
        throw new ResumableError('network', 'down');
      };
      const { controller: c } = controller({ send: fail, loadOlder: fail, hasOlder: true });
      const { rerender } = render(<ResumableChatView controller={c} />);
      await ue.type(screen.getByRole('textbox', { name: 'Message' }), 'x{Enter}');
      await ue.click(screen.getByRole('button', { name: 'Load older messages' }));
      rerender(<ResumableChatView controller={{ ...c, isStreaming: true, stop: fail }} />);
      await ue.click(screen.getByRole('button', { name: 'Stop' }));
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
