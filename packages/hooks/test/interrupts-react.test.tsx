// @vitest-environment jsdom
/**
 * `useResumableChat` with interrupts on the real server: `interrupts`, `resolve` and a
 * browser tool through the hook (the interrupt session and the runner load on demand).
 */
import { type RunningServer, startServer } from '@resumable/server';
import { act, cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { BrowserTools } from '../src/core/interrupts/tool-declarations.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { type ResumableChatController, useResumableChat } from '../src/index.js';
import { TestProvider, until } from './react-harness.js';
import { assistantText } from './util.js';

let server: RunningServer;
beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
});
afterEach(async () => {
  cleanup();
  await server.close();
});

function Probe(props: {
  interrupt: string;
  tools?: BrowserTools;
  onChat: (chat: ResumableChatController) => void;
}) {
  const chat = useResumableChat({
    key: `react-${props.interrupt}`,
    runInput: { forwardedProps: { script: { interrupt: props.interrupt, tokensPerSecond: 0 } } },
    ...(props.tools ? { tools: props.tools } : {}),
  });
  props.onChat(chat);
  return null;
}

function mount(interrupt: string, tools?: BrowserTools) {
  const ref: { chat: ResumableChatController | null } = { chat: null };
  render(
    <TestProvider
      endpoint={server.url}
      storage={createMemoryStorage()}
      backoff={{ initialMs: 10, maxMs: 50 }}
    >
      <Probe interrupt={interrupt} {...(tools ? { tools } : {})} onChat={(c) => (ref.chat = c)} />
    </TestProvider>,
  );
  return () => ref.chat!;
}

it('a question: interrupts lists it open, resolve answers it, the continuation streams into the same transcript', async () => {
  const chat = mount('question');
  await act(() => chat().send('write the report'));
  await until(() => chat().interrupts.some((i) => i.status === 'open'), 'asked', 10_000);
  const [question] = chat().interrupts;
  expect(question).toMatchObject({ reason: 'question', message: 'What should I call the report?' });
  await act(() => chat().resolve(question!.id, { answer: 'Q3 review' }));
  const text =
    'Before I write the report: What should I call the report?Thanks: I will call the report "Q3 review".';
  await until(() => assistantText(chat().messages) === text, 'continuation', 10_000);
  await until(() => chat().interrupts[0]?.status === 'resolved', 'resolved');
  expect(chat().interrupts[0]).toMatchObject({
    answeredHere: true,
    answer: { payload: { answer: 'Q3 review' } },
  });
  expect(
    chat()
      .messages.filter((m) => m.role === 'user')
      .map((m) => m.content),
  ).toEqual(['write the report']);
});

it('a browser tool declared through the hook runs once and its result is the answer', async () => {
  let executions = 0;
  const tools = {
    page_title: {
      description: 'the page title',
      execute: () => {
        executions++;
        return 'Resumable';
      },
    },
  };
  const chat = mount('client_tool', tools);
  await act(() => chat().send('what is the page called?'));
  const text = 'The page ran page_title and returned Resumable.';
  await until(() => assistantText(chat().messages) === text, 'continuation', 10_000);
  expect(executions).toBe(1);
});
