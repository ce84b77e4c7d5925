// <ResumableChat> end to end in jsdom: the real hooks against the real server on 127.0.0.1
// (port 0, memory store), with an agent whose reply we know to the character.
import { EventType } from '@resumable/protocol';
import { type RunningServer, startServer } from '@resumable/server';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResumableChat } from '../src/index.js';

const REPLY = ['Hello', ' from', ' a', ' real', ' server', ' — ', 'every', ' token', ' once.'];
const SLOW_TOKENS = 400;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({
    port: 0,
    store: 'memory',
    async *agent(input, { signal }) {
      const messageId = `m-${input.runId}`;
      const slow = JSON.stringify(input.messages).includes('slow please');
      yield { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' };
      const tokens = slow ? Array.from({ length: SLOW_TOKENS }, (_, i) => `t${i} `) : REPLY;
      for (const delta of tokens) {
        if (signal.aborted) return;
        yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta };
        await sleep(slow ? 25 : 15, signal);
      }
      yield { type: EventType.TEXT_MESSAGE_END, messageId };
    },
  });
});

afterAll(async () => {
  await server?.close();
});

function lastAssistant(container: HTMLElement): HTMLElement | null {
  const all = container.querySelectorAll<HTMLElement>('[data-role="assistant"]');
  return all[all.length - 1] ?? null;
}

describe('<ResumableChat> against the real server', () => {
  it('sends a prompt and shows the exact reply, once, then offers Send again', async () => {
    const ue = userEvent.setup();
    const { container } = render(
      <ResumableChat endpoint={server.url} chatOptions={{ key: 'ui-1' }} />,
    );
    await ue.type(screen.getByRole('textbox', { name: 'Message' }), 'Hi there{Enter}');

    await waitFor(
      () => expect(lastAssistant(container)?.getAttribute('data-status')).toBe('complete'),
      { timeout: 10_000 },
    );
    const reply = lastAssistant(container)!;
    const text = reply.querySelector('[data-part="text"]')!;
    expect(text.getAttribute('data-text')).toBe(REPLY.join(''));
    expect(text.textContent).toBe('Hello from a real server — every token once.');
    const users = [...container.querySelectorAll('[data-role="user"] [data-part="text"]')];
    expect(users.map((u) => u.textContent)).toEqual(['Hi there']);
    expect(container.querySelectorAll('[data-role="assistant"]')).toHaveLength(1);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy());
    expect(screen.getByRole('status').textContent).toBe('');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('stops a streaming reply from the Stop button and keeps what arrived, marked stopped', async () => {
    const ue = userEvent.setup();
    const { container } = render(
      <ResumableChat endpoint={server.url} chatOptions={{ key: 'ui-2' }} />,
    );
    await ue.type(screen.getByRole('textbox', { name: 'Message' }), 'slow please{Enter}');
    await waitFor(
      () =>
        expect(
          lastAssistant(container)?.querySelector('[data-part="text"]')?.getAttribute('data-text'),
        ).toMatch(/^t0 t1 t2 /),
      { timeout: 10_000 },
    );
    await ue.click(screen.getByRole('button', { name: 'Stop' }));
    await waitFor(
      () => expect(lastAssistant(container)?.getAttribute('data-status')).toBe('stopped'),
      { timeout: 10_000 },
    );
    const kept = lastAssistant(container)!
      .querySelector('[data-part="text"]')!
      .getAttribute('data-text')!;
    // A prefix of the script, token by token, with nothing repeated or skipped.
    const tokens = kept.split(' ').filter(Boolean);
    expect(tokens.length).toBeLessThan(SLOW_TOKENS);
    expect(tokens).toEqual(tokens.map((_, i) => `t${i}`));
    // The answer turn's row says how it ended.
    const turn = [...container.querySelectorAll('.rc-turn')].at(-1)!;
    expect(
      turn.querySelector(':scope > .rc-message__actions [data-part="ended"]')!.textContent,
    ).toBe('Stopped');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy());
  });
});
