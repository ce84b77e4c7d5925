/**
 * The hooks README's custom-UI examples (issue 27), compiled and rendered: each example is a
 * file here (`test/readme/`, type-checked with the rest) that must appear verbatim as a
 * ```tsx block of packages/hooks/README.md, and is rendered in jsdom with the real hooks
 * against the real server on 127.0.0.1 (port 0, under /api as the examples say): the scripted
 * agent's showcase answer (reasoning, a tool call with its result, Markdown, an approval), and
 * an agent whose n-th answer to a prompt says so (versions). The assertions are the exact text
 * each example draws.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  createMemoryStorage,
  ResumableProvider,
  type UseResumableChatOptions,
  useResumableChat,
} from '@resumable/hooks';
import { createThread } from '@resumable/hooks/threads';
import { EventType, messageText } from '@resumable/protocol';
import { type RunningServer, scriptedAgent, startServer } from '@resumable/server';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chat as BranchesChat } from './readme/branches.js';
import { Chat } from './readme/chat.js';
import { Transcript } from './readme/parts.js';
import { Report } from './readme/run.js';
import { Conversation } from './readme/tabs.js';
import { Transcript as KitTranscript } from './readme/ui-turns.js';

const README = readFileSync(resolve(import.meta.dirname, '../../hooks/README.md'), 'utf8');
const example = (file: string) =>
  readFileSync(resolve(import.meta.dirname, 'readme', file), 'utf8').trimEnd();
const tsxBlocks = (readme: string) =>
  [...readme.matchAll(/```tsx\n([\s\S]*?)\n```/g)].map((m) => m[1]);
const blocks = tsxBlocks(README);
const UI_README = readFileSync(resolve(import.meta.dirname, '../README.md'), 'utf8');

// The showcase answer of the scripted agent (packages/server/src/agents/scripted-demo.ts).
const REASONING =
  'The user wants to know how the chat survives a reload. I should look up how resuming ' +
  'works, then explain offsets, show the client side in TypeScript and the server side in ' +
  'Python, and compare the failure cases in a table.';
const SEARCH_ARGS = '{"query":"resume after reload","limit":2}';
const SEARCH_RESULT =
  '{"results":[{"title":"Resuming a run","path":"docs/protocol.md#resuming"},' +
  '{"title":"Offsets","path":"docs/protocol.md#offsets"}]}';

/** The showcase server, and one whose n-th answer to a prompt says so (for versions). */
let demo: RunningServer;
let numbered: RunningServer;
beforeAll(async () => {
  // Under /api, as the README's examples say: they are rendered with their own endpoint.
  demo = await startServer({
    port: 0,
    store: 'memory',
    basePath: '/api',
    agent: scriptedAgent({ reply: 'demo', tokensPerSecond: 0 }),
  });
  numbered = await startServer({
    port: 0,
    store: 'memory',
    basePath: '/api',
    async *agent(input, { answerIndex }) {
      const messageId = `m-${input.runId}`;
      const prompt = messageText(input.messages.findLast((m) => m.role === 'user') ?? {});
      yield { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' };
      const delta = `Answer ${(answerIndex ?? 0) + 1} to ${prompt}`;
      yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta };
      yield { type: EventType.TEXT_MESSAGE_END, messageId };
    },
  });
});
afterAll(async () => {
  await demo?.close();
  await numbered?.close();
});

/**
 * The example under a provider at `/api`, as the README's `App` has it; jsdom's page is not
 * the server's, so `/api/…` is fetched from the test server's origin.
 */
function Provided({ server, children }: { server: RunningServer; children: ReactNode }) {
  const origin = new URL(server.url).origin;
  return (
    <ResumableProvider
      endpoint="/api"
      storage={createMemoryStorage()}
      fetch={(input, init) =>
        fetch(new URL(input instanceof Request ? input.url : String(input), origin), init)
      }
    >
      {children}
    </ResumableProvider>
  );
}

interface Sender {
  send: ((text: string) => Promise<void>) | null;
}
/** Examples without a composer: the test sends on the same chat (the same key, one session). */
function SendOnChat({ sender, options }: { sender: Sender; options?: UseResumableChatOptions }) {
  sender.send = useResumableChat(options).send;
  return null;
}

function ask(text: string) {
  const input = document.querySelector<HTMLInputElement>('input[name="q"]')!;
  fireEvent.change(input, { target: { value: text } });
  fireEvent.submit(input.form!);
}

const items = (container: HTMLElement) => [...container.querySelectorAll('[role="log"] > li')];

/** The showcase answer's Markdown, drawn as HTML: headings, list, table, code; no source. */
function expectShowcaseMarkdown(answer: Element) {
  expect([...answer.querySelectorAll('h2, h3')].map((h) => h.textContent)).toEqual([
    'How this chat survives a reload',
    'What happens, step by step',
  ]);
  expect([...answer.querySelectorAll('table tbody tr')].map((r) => r.textContent)).toEqual([
    'reloadthe answer, at onceresumes after its offset',
    'Wi-Fi drops"offline", then the restretries when back',
    'server restarts"can\'t reach the server"backs off, then resumes',
  ]);
  expect(answer.querySelectorAll('ol > li')).toHaveLength(4);
  expect(answer.querySelector('blockquote')!.textContent!.trim()).toBe(
    'A resumable stream is an append-only log plus a cursor: the rest is bookkeeping.',
  );
  expect(answer.textContent).not.toMatch(/\| what breaks|## |\*\*durable log\*\*|```/);
}

describe("the hooks README's custom-UI examples", () => {
  it('are in the README verbatim', () => {
    expect(blocks).toContain(example('chat.tsx'));
    expect(blocks).toContain(example('parts.tsx'));
    expect(blocks).toContain(example('tabs.tsx'));
    expect(blocks).toContain(example('branches.tsx'));
    expect(blocks).toContain(example('run.tsx'));
    // And the UI README's: the same turns drawn by <TurnParts>.
    expect(tsxBlocks(UI_README)).toContain(example('ui-turns.tsx'));
  });

  it('useResumableChat with useChatTurns: one item per turn, the answer as Markdown', async () => {
    const { container } = render(
      <Provided server={demo}>
        <Chat />
      </Provided>,
    );
    ask('How does this chat survive a reload?');
    await waitFor(
      () => {
        expect(items(container)).toHaveLength(2);
        expect(items(container)[1]!.querySelector('table')).not.toBeNull();
        expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy();
      },
      { timeout: 15_000 },
    );
    const [prompt, answer] = items(container);
    expect(prompt!.textContent).toBe('userHow does this chat survive a reload?');
    // The role, the tool's status, then the answer's Markdown: no reasoning (not drawn), no
    // empty bubble, no tool JSON.
    expect([...answer!.children].slice(0, 2).map((e) => [e.tagName, e.textContent])).toEqual([
      ['B', 'assistant'],
      ['P', 'search_docs: done'],
    ]);
    expectShowcaseMarkdown(answer!);
    expect(answer!.textContent).not.toContain(REASONING);
    expect(answer!.textContent).not.toContain('"query"');
  });

  it('every part drawn: reasoning, the tool with arguments and result, Markdown; an approval answered', async () => {
    const sender: Sender = { send: null };
    const { container } = render(
      <Provided server={demo}>
        <Transcript />
        <SendOnChat sender={sender} />
      </Provided>,
    );
    await act(() => sender.send!('How does this chat survive a reload?'));
    await waitFor(() => expect(items(container)[1]?.querySelector('table')).toBeTruthy(), {
      timeout: 15_000,
    });
    const [prompt, answer] = items(container);
    expect([prompt!.getAttribute('data-role'), prompt!.textContent]).toEqual([
      'user',
      'How does this chat survive a reload?',
    ]);
    const [reasoning, tool] = [...answer!.children];
    expect(answer!.getAttribute('data-role')).toBe('assistant');
    expect([reasoning!.tagName, reasoning!.textContent]).toEqual([
      'DETAILS',
      `Thought${REASONING}`,
    ]);
    expect((reasoning as HTMLDetailsElement).open).toBe(false);
    expect([tool!.tagName, tool!.textContent]).toEqual([
      'SECTION',
      `search_docs · done${SEARCH_ARGS}${SEARCH_RESULT}`,
    ]);
    expectShowcaseMarkdown(answer!);

    // A prompt that asks to delete: the tool waits for approval, with the interrupt's words.
    await act(() => sender.send!('Please delete the old draft'));
    const approve = await screen.findByRole('button', { name: 'Approve' }, { timeout: 15_000 });
    const asking = items(container)[3]!;
    expect(asking.textContent).toBe(
      'I can delete notes/old-draft.md for you. It needs your approval.' +
        'delete_file · awaiting_approval{"path":"notes/old-draft.md"}' +
        'Delete notes/old-draft.md?ApproveDeny',
    );
    fireEvent.click(approve);
    // The continuation joins the same answer: the tool's result, its status, the text after.
    await waitFor(
      () =>
        expect(items(container)[3]!.textContent).toBe(
          'I can delete notes/old-draft.md for you. It needs your approval.' +
            'delete_file · done{"path":"notes/old-draft.md"}{"deleted":"notes/old-draft.md"}' +
            'Approved: I deleted notes/old-draft.md.',
        ),
      { timeout: 15_000 },
    );
    expect(items(container)).toHaveLength(4);
  });

  it("useResumableRun: the answer's text parts as Markdown, no reasoning or tool JSON", async () => {
    const { container } = render(
      <Provided server={demo}>
        <Report />
      </Provided>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Generate' }));
    const article = container.querySelector('article')!;
    await waitFor(() => expect(article.querySelector('table')).toBeTruthy(), { timeout: 15_000 });
    expectShowcaseMarkdown(article);
    expect(article.textContent).not.toContain(REASONING);
    expect(article.textContent).not.toContain('"query"');
    expect(article.textContent).not.toContain('Write it');
  });

  it('branches: regenerate, switch back, edit the prompt, each turn with its ‹ n / m ›', async () => {
    const sender: Sender = { send: null };
    const { container } = render(
      <Provided server={numbered}>
        <BranchesChat />
        <SendOnChat sender={sender} />
      </Provided>,
    );
    const drawn = () => items(container).map((li) => li.textContent);
    await act(() => sender.send!('Hi'));
    await waitFor(
      () => expect(drawn()).toEqual(['user HiEdit', 'assistant Answer 1 to HiRegenerate']),
      { timeout: 15_000 },
    );
    fireEvent.click(screen.getByRole('button', { name: 'Regenerate' }));
    await waitFor(
      () => expect(drawn()).toEqual(['user HiEdit', 'assistant Answer 2 to Hi‹2 / 2›Regenerate']),
      { timeout: 15_000 },
    );
    fireEvent.click(screen.getByRole('button', { name: '‹' }));
    await waitFor(
      () => expect(drawn()).toEqual(['user HiEdit', 'assistant Answer 1 to Hi‹1 / 2›Regenerate']),
      { timeout: 15_000 },
    );
    fireEvent.click(screen.getByRole('button', { name: 'Edit' }));
    const box = container.querySelector<HTMLInputElement>('input[name="text"]')!;
    expect(box.value).toBe('Hi');
    fireEvent.change(box, { target: { value: 'Hello' } });
    fireEvent.submit(box.form!);
    await waitFor(
      () =>
        expect(drawn()).toEqual(['user Hello‹2 / 2›Edit', 'assistant Answer 1 to HelloRegenerate']),
      { timeout: 15_000 },
    );
  });

  it('a conversation joined by thread and token: one item per turn, its text', async () => {
    const { threadId, token } = await createThread({ endpoint: numbered.url });
    const sender: Sender = { send: null };
    const { container } = render(
      <Provided server={numbered}>
        <Conversation threadId={threadId} token={token} />
        <SendOnChat sender={sender} options={{ endpoint: '/api', threadId, token }} />
      </Provided>,
    );
    await act(() => sender.send!('Hi'));
    await waitFor(
      () => expect(items(container).map((li) => li.textContent)).toEqual(['Hi', 'Answer 1 to Hi']),
      { timeout: 15_000 },
    );
  });

  it("the UI README's <TurnParts> transcript: the kit's parts, an approval answered from its card", async () => {
    const sender: Sender = { send: null };
    const { container } = render(
      <Provided server={demo}>
        <KitTranscript />
        <SendOnChat sender={sender} options={{ endpoint: '/api' }} />
      </Provided>,
    );
    await act(() => sender.send!('Please delete the old draft'));
    const approve = await screen.findByRole('button', { name: 'Approve' }, { timeout: 15_000 });
    const tool = () => container.querySelector('.rc-tool')!;
    expect([tool().getAttribute('data-tool-status'), tool().textContent]).toEqual([
      'awaiting_approval',
      'delete_fileWaiting for approvalArguments{\n  "path": "notes/old-draft.md"\n}',
    ]);
    fireEvent.click(approve);
    await waitFor(
      () =>
        expect(
          [...container.querySelectorAll('.rc-message__content')].map((e) =>
            e.getAttribute('data-text'),
          ),
        ).toEqual([
          'I can delete notes/old-draft.md for you. It needs your approval.',
          'Approved: I deleted notes/old-draft.md.',
        ]),
      { timeout: 15_000 },
    );
    expect([tool().getAttribute('data-tool-status'), tool().textContent]).toEqual([
      'done',
      'delete_fileDoneArguments{\n  "path": "notes/old-draft.md"\n}Result{\n  "deleted": "notes/old-draft.md"\n}',
    ]);
    expect(
      [...container.querySelectorAll('.rc-turn-parts')].map((e) => e.getAttribute('data-role')),
    ).toEqual(['user', 'assistant']);
  });
});
