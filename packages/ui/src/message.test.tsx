import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { assistant, user } from '../test/fixtures.js';
import type { ChatMessage } from './controller-types.js';
import { partsChunk } from './lazy-parts.js';
import { Markdown } from './markdown.js';
import { Message } from './message.js';

// The transcript's parts chunk (tool-call cards, ‹ n / m ›, files…); its fallbacks: lazy-parts.test.tsx.
beforeAll(() => partsChunk.load());

function el(container: HTMLElement, id: string): HTMLElement {
  return container.querySelector(`[data-message-id="${id}"]`) as HTMLElement;
}

function text(container: HTMLElement, id: string): string {
  return el(container, id).querySelector('[data-part="text"]')!.textContent ?? '';
}

describe('<Message> DOM contract', () => {
  it('carries data-message-id, data-role and data-status for each status', () => {
    const messages: ChatMessage[] = [
      user('u1', 'Hi'),
      assistant('a1', 'Hel', { streaming: true }),
      assistant('a2', 'Hello there'),
      assistant('a3', 'Half an ans', { ended: 'stopped' }),
      assistant('a4', 'Broken', { ended: 'error' }),
    ];
    const { container } = render(
      <div>
        {messages.map((m) => (
          <Message key={m.id} message={m} />
        ))}
      </div>,
    );
    const facts = [...container.querySelectorAll('[data-message-id]')].map((e) => [
      e.getAttribute('data-message-id'),
      e.getAttribute('data-role'),
      e.getAttribute('data-status'),
    ]);
    expect(facts).toEqual([
      ['u1', 'user', 'complete'],
      ['a1', 'assistant', 'streaming'],
      ['a2', 'assistant', 'complete'],
      ['a3', 'assistant', 'stopped'],
      ['a4', 'assistant', 'error'],
    ]);
    expect(text(container, 'u1')).toBe('Hi');
    expect(text(container, 'a2')).toBe('Hello there');
  });

  it('keeps the exact Markdown source in data-text while rendering it', () => {
    const md = '## Title\n\nSome **bold** text\n\n```ts\nconst a = 1;\n```\n';
    const { container } = render(<Message message={assistant('a1', md)} />);
    const part = el(container, 'a1').querySelector('[data-part="text"]')!;
    expect(part.getAttribute('data-text')).toBe(md);
    expect(part.querySelector('h2')!.textContent).toBe('Title');
  });

  it('keeps a stopped reply and marks it "Stopped", distinct from an error', () => {
    const { container } = render(
      <>
        <Message message={assistant('a3', 'Half an ans', { ended: 'stopped' })} />
        <Message message={assistant('a4', 'Broken', { ended: 'error' })} />
      </>,
    );
    expect(text(container, 'a3')).toBe('Half an ans');
    expect(el(container, 'a3').querySelector('[data-part="ended"]')!.textContent).toBe('Stopped');
    expect(el(container, 'a4').querySelector('[data-part="ended"]')!.textContent).toBe(
      'Interrupted by an error',
    );
  });

  it('shows a waiting user message as "Waiting to send" (it goes out on its own)', () => {
    const { container } = render(
      <>
        <Message message={user('u1', 'later', { pending: 'queued' })} />
        <Message message={user('u2', 'now', { pending: 'sending' })} />
      </>,
    );
    expect(el(container, 'u1').getAttribute('data-pending')).toBe('queued');
    expect(el(container, 'u1').querySelector('[data-part="pending"]')!.textContent).toBe(
      'Waiting to send',
    );
    expect(el(container, 'u2').querySelector('[data-part="pending"]')!.textContent).toBe(
      'Sending…',
    );
  });

  it('renders user text as typed, never as Markdown', () => {
    const { container } = render(<Message message={user('u1', '**not bold** <b>x</b>')} />);
    expect(text(container, 'u1')).toBe('**not bold** <b>x</b>');
    expect(container.querySelector('strong, b')).toBeNull();
  });

  it('renders an empty streaming reply as a typing indicator named "Thinking…"', () => {
    render(<Message message={assistant('a1', '', { streaming: true })} />);
    expect(screen.getByRole('img', { name: 'Thinking…' })).toBeTruthy();
  });
});

describe('<Message> Markdown', () => {
  it('renders GFM: emphasis, lists, tables, strikethrough', () => {
    const md = '**bold** and ~~gone~~\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n';
    const { container } = render(<Message message={assistant('a1', md)} />);
    expect(container.querySelector('strong')!.textContent).toBe('bold');
    expect(container.querySelector('del')!.textContent).toBe('gone');
    expect([...container.querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'one',
      'two',
    ]);
    expect([...container.querySelectorAll('td')].map((td) => td.textContent)).toEqual(['1', '2']);
  });

  it('does not flicker on unterminated syntax while streaming', () => {
    const { container, rerender } = render(
      <Message message={assistant('a1', 'This is **bol', { streaming: true })} />,
    );
    expect(container.querySelector('strong')!.textContent).toBe('bol');
    expect(text(container, 'a1')).toBe('This is bol');
    rerender(<Message message={assistant('a1', 'See `cod', { streaming: true })} />);
    expect(container.querySelector('code')!.textContent).toBe('cod');
    rerender(
      <Message message={assistant('a1', 'Go to [the docs](https://exa', { streaming: true })} />,
    );
    expect(container.querySelector('a')).toBeNull();
    expect(text(container, 'a1')).toBe('Go to the docs');
    // Once complete, the text is rendered exactly as written.
    rerender(<Message message={assistant('a1', 'This is **bol')} />);
    expect(container.querySelector('strong')).toBeNull();
    expect(text(container, 'a1')).toBe('This is **bol');
  });

  it('renders an unclosed code fence as code while it streams', () => {
    const { container } = render(
      <Message
        message={assistant('a1', 'Here:\n\n```ts\nconst a = 1;\nconst b', { streaming: true })}
      />,
    );
    expect(container.querySelector('pre code')!.textContent).toBe('const a = 1;\nconst b\n');
  });

  it('gives code blocks a language tag and a copy button that copies the exact code', async () => {
    const ue = userEvent.setup();
    const { container } = render(
      <Message
        message={assistant('a1', 'Run:\n\n```sh\npnpm add @resumable/ui\npnpm dev\n```\n')}
      />,
    );
    const block = container.querySelector('[data-part="code"]') as HTMLElement;
    expect(block.querySelector('.rc-code__lang')!.textContent).toBe('sh');
    await ue.click(screen.getByRole('button', { name: 'Copy code' }));
    expect(await navigator.clipboard.readText()).toBe('pnpm add @resumable/ui\npnpm dev');
    expect(screen.getByRole('button', { name: 'Copied' })).toBeTruthy();
  });

  it('copies a whole finished reply', async () => {
    const ue = userEvent.setup();
    render(<Message message={assistant('a1', '# Title\n\nBody')} />);
    await ue.click(screen.getByRole('button', { name: 'Copy message' }));
    expect(await navigator.clipboard.readText()).toBe('# Title\n\nBody');
  });
});

describe('<Message> reasoning and tool calls', () => {
  it('shows reasoning open while it streams and folded once done', () => {
    const r = {
      id: 'r1',
      role: 'reasoning',
      content: 'Let me think',
      streaming: true,
    } as ChatMessage;
    const { container, rerender } = render(<Message message={r} />);
    const details = container.querySelector('details')!;
    expect(details.open).toBe(true);
    expect(details.querySelector('summary')!.textContent).toBe('Thinking…');
    rerender(<Message message={{ ...r, streaming: undefined } as ChatMessage} />);
    expect(details.open).toBe(false);
    expect(details.querySelector('summary')!.textContent).toBe('Reasoning');
    expect(text(container, 'r1')).toBe('Let me think');
  });

  it('streams tool arguments raw, pretty-prints them once complete, then shows the result', () => {
    const call = (args: string, streaming?: true) => ({
      id: 'c1',
      type: 'function' as const,
      function: { name: 'get_weather', arguments: args },
      ...(streaming ? { streaming } : {}),
    });
    const a = (args: string, streaming?: true) =>
      assistant('a1', '', { toolCalls: [call(args, streaming)], streaming: true });
    const { container, rerender } = render(<Message message={a('{"city":"Par', true)} />);
    const tool = container.querySelector('[data-tool-call-id="c1"]') as HTMLElement;
    expect(tool.querySelector('.rc-tool__name')!.textContent).toBe('get_weather');
    expect(tool.getAttribute('data-tool-status')).toBe('running');
    expect(tool.querySelector('[data-part="arguments"]')!.textContent).toBe('{"city":"Par');

    rerender(<Message message={a('{"city":"Paris"}')} />);
    expect(tool.querySelector('[data-part="arguments"]')!.textContent).toBe(
      '{\n  "city": "Paris"\n}',
    );
    expect(tool.querySelector('.rc-badge')!.textContent).toBe('Running');

    const result = {
      id: 't1',
      role: 'tool',
      toolCallId: 'c1',
      content: '{"temp":21}',
    } as ChatMessage;
    rerender(<Message message={a('{"city":"Paris"}')} toolResults={[result]} />);
    expect(tool.getAttribute('data-tool-status')).toBe('done');
    expect(tool.querySelector('.rc-badge')!.textContent).toBe('Done');
    const res = tool.querySelector('[data-message-id="t1"]') as HTMLElement;
    expect(res.getAttribute('data-role')).toBe('tool');
    expect(res.getAttribute('data-status')).toBe('complete');
    expect(res.querySelector('[data-part="result"]')!.textContent).toBe('{\n  "temp": 21\n}');

    const failed = { ...result, error: 'city not found' } as ChatMessage;
    rerender(<Message message={a('{"city":"Paris"}')} toolResults={[failed]} />);
    expect(tool.getAttribute('data-tool-status')).toBe('failed');
    expect(tool.querySelector('.rc-badge')!.textContent).toBe('Failed');
    expect(tool.querySelector('[data-part="result"]')!.textContent).toBe('city not found');
  });

  it('renders a tool result on its own (its call not loaded), failed ones marked Failed', () => {
    const t = {
      id: 't0',
      role: 'tool',
      toolCallId: 'c0',
      content: '',
      error: 'timeout',
    } as ChatMessage;
    const { container } = render(<Message message={t} />);
    const row = el(container, 't0');
    expect(row.getAttribute('data-role')).toBe('tool');
    expect(row.getAttribute('data-status')).toBe('error');
    expect(row.querySelector('[data-part="result"]')!.textContent).toBe('timeout');
    expect(row.querySelector('[data-part="ended"]')!.textContent).toBe('Failed');
  });

  it('marks a tool call of a stopped reply as cancelled', () => {
    const m = assistant('a1', '', {
      ended: 'stopped',
      toolCalls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{}' } }],
    });
    const { container } = render(<Message message={m} labels={{ toolCancelled: 'Abgebrochen' }} />);
    const tool = container.querySelector('[data-tool-call-id="c1"]')!;
    expect(tool.getAttribute('data-tool-status')).toBe('cancelled');
    expect(tool.querySelector('.rc-badge')!.textContent).toBe('Abgebrochen');
  });
});

describe('<Markdown> on its own', () => {
  it('renders with the default labels and a className', () => {
    const { container } = render(
      <Markdown text={'![logo](https://x.example/l.png)\n\n```\nplain\n```'} className="doc" />,
    );
    expect(container.firstElementChild!.className).toBe('rc-markdown doc');
    expect(container.querySelector('.rc-image-blocked')!.textContent).toBe(
      'Image not loaded: logo',
    );
    expect(screen.getByRole('button', { name: 'Copy code' })).toBeTruthy();
    expect(container.querySelector('.rc-code__lang')!.textContent).toBe('');
  });
});

describe('renderCode', () => {
  const highlight = (code: string, language: string | null) => (
    <pre className="hl" data-lang={language ?? ''}>
      {code.toUpperCase()}
    </pre>
  );

  it('renders code block bodies with the given renderer, keeping the header and copy button', async () => {
    const ue = userEvent.setup();
    const { container } = render(
      <Message message={assistant('a1', '```py\nprint(1)\n```')} renderCode={highlight} />,
    );
    const block = container.querySelector('[data-part="code"]')!;
    const pre = block.querySelector('pre.hl')!;
    expect(pre.getAttribute('data-lang')).toBe('py');
    expect(pre.textContent).toBe('PRINT(1)');
    await ue.click(screen.getByRole('button', { name: 'Copy code' }));
    expect(await navigator.clipboard.readText()).toBe('print(1)');
  });
});
