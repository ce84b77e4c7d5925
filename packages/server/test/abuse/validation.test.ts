import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { postRun, prompt, STORES, tempDir } from '../helpers.js';

const user = (content: unknown) => ({ messages: [{ id: 'u1', role: 'user', content }] });

/** Nested arrays `depth` deep, as JSON text (what a hostile client sends). */
const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/**
 * Class 4: everything that would fail after a 201 is a 400 at POST, on every store (the
 * store is where "accepted, then lost" showed). Nothing is created by a refused POST.
 */
describe.each(STORES)('abuse: validation before 201 on the $name store', ({ create }) => {
  const dir = tempDir();
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, store: create(dir.path), log: () => {} });
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  const cases: Array<[string, unknown, string]> = [
    [
      'tokens=1e9',
      prompt('x', { tokens: 1e9 }),
      'script.tokens must be an integer from 0 to 1000000',
    ],
    [
      'more tokens than events a run may have',
      prompt('x', { tokens: 200_000, tokensPerSecond: 0 }),
      "script.tokens 200000 would make a run of over 100000 events, the server's limit",
    ],
    [
      'a tiny tokensPerSecond (a run of 116 days)',
      prompt('x', { tokens: 100, tokensPerSecond: 0.00001 }),
      "script.tokens 100 at 0.00001 per second would last 10000000 s, over the server's run limit of 1800 s",
    ],
    [
      'a negative tokensPerSecond',
      prompt('x', { tokens: 1, tokensPerSecond: -1 }),
      'script.tokensPerSecond must be a number ≥ 0',
    ],
    [
      'a script that is not an object',
      prompt('x', 'fast' as never),
      'forwardedProps.script must be an object',
    ],
    [
      'a text part whose text is a number',
      user([{ type: 'text', text: 42 }]),
      'messages[0].content[0].text must be a string',
    ],
    [
      'a part without a type',
      user([{ text: 'hi' }]),
      'messages[0].content[0].type must be a string',
    ],
    ['a part that is a string', user(['hi']), 'messages[0].content[0] must be an object'],
    [
      'threadId "."',
      { ...prompt('x'), threadId: '.' },
      'threadId must be 1-200 characters of A-Z a-z 0-9 . _ : -, not . or ..',
    ],
    [
      'threadId ".."',
      { ...prompt('x'), threadId: '..' },
      'threadId must be 1-200 characters of A-Z a-z 0-9 . _ : -, not . or ..',
    ],
    [
      'state that is a string',
      { ...prompt('x'), state: 'on' },
      'state must be an object or an array',
    ],
    [
      'an assistant tool call without arguments',
      {
        messages: [
          {
            id: 'a1',
            role: 'assistant',
            toolCalls: [{ id: 'c', type: 'function', function: { name: 'f' } }],
          },
        ],
      },
      'messages[0].toolCalls[0] must be {id, type:"function", function:{name, arguments}} with strings',
    ],
    [
      'assistant content that is an object',
      { messages: [{ id: 'a1', role: 'assistant', content: { a: 1 } }] },
      'messages[0].content must be a string',
    ],
    [
      'a tool that is null (an agent would read its name)',
      { ...prompt('x'), tools: [null] },
      'tools[0] must be an object with a name (a non-empty string)',
    ],
    [
      'a tool whose parameters are a string',
      { ...prompt('x'), tools: [{ name: 'f', parameters: 'any' }] },
      'tools[0].parameters must be a JSON schema object',
    ],
    [
      'a context entry that is null',
      { ...prompt('x'), context: [null] },
      'context[0] must be {description, value} with strings',
    ],
    [
      'a tool message that answers no tool call',
      { messages: [{ id: 't1', role: 'tool', content: '42' }] },
      'messages[0].toolCallId must be a string (the tool call this message answers)',
    ],
  ];

  it.each(cases)('%s answers 400 bad_request', async (_name, body, message) => {
    const before = await server.store.findOrphanedRuns();
    const answer = await postRun(server.url, body as Record<string, unknown>);
    expect([answer.status, answer.json]).toEqual([
      400,
      { error: { code: 'bad_request', message } },
    ]);
    expect(await server.store.findOrphanedRuns()).toEqual(before);
  });

  it('a 100,000-deep content answers 400 (it used to be a 201 then missing from history)', async () => {
    const response = await fetch(`${server.url}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: `{"messages":[{"id":"u1","role":"user","content":[{"type":"text","text":"x","extra":${deep(100_000)}}]}]}`,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: 'bad_request', message: 'the body nests deeper than 64 levels' },
    });
  });

  it('64 levels in all are fine: the run is answered 201 and its prompt is in the history', async () => {
    const nested = JSON.parse(deep(55)) as unknown;
    const answer = await postRun(server.url, {
      messages: [
        { id: 'u1', role: 'user', content: [{ type: 'text', text: 'deep ok', extra: nested }] },
      ],
      forwardedProps: { script: { tokens: 3, tokensPerSecond: 0 } },
    });
    expect(answer.status).toBe(201);
    await server.manager.waitForRun(answer.json.runId);
    const page = await fetch(`${server.url}/threads/${answer.json.threadId}/messages`, {
      headers: { Authorization: `Bearer ${answer.json.token}` },
    });
    const { messages } = (await page.json()) as { messages: Array<{ id: string; role: string }> };
    expect(messages.map((m) => [m.id, m.role])).toEqual([
      ['u1', 'user'],
      [`msg-${answer.json.runId}`, 'assistant'],
    ]);
  });
});
