import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { chunk } from '../fake-upstream.js';
import { failed, frame, openaiStack, type Respond, runToEnd, textLog } from './harness.js';

/** An OpenAI-compatible upstream answering with `respond`, and a server running against it. */
const openai = (respond: Respond, idleTimeoutMs = 1_000) =>
  openaiStack(respond, { timeoutMs: 5_000, idleTimeoutMs, maxToolCalls: 8 });

/** An upstream that answers `status` with `body` as `type`. */
const page = (status: number, type: string, body: string) =>
  openai((_req, _body, res) => {
    res.writeHead(status, { 'Content-Type': type });
    res.end(body);
  });

/** An event stream of these raw `data:` payloads, then `[DONE]`. */
const stream = (...data: string[]) =>
  openai((_req, _body, res: ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    for (const d of data) res.write(`data: ${d}\n\n`);
    res.end('data: [DONE]\n\n');
  });

/** A chunk's payload with one delta (what `chunk()` frames). */
const delta = (value: unknown) => JSON.stringify({ choices: [{ index: 0, delta: value }] });

describe('hostile OpenAI-compatible upstream: answers that are not a chat stream', () => {
  it('a 200 HTML page (a proxy login) fails at once, quoting it on one line', async () => {
    const { server, what } = await page(
      200,
      'text/html',
      '<html>\n<title>Sign in</title>\n</html>',
    );
    const { run, log } = await runToEnd(server);
    expect(log).toEqual(
      failed(
        run,
        `${what} answered 200 with text/html, not an event stream: <html> <title>Sign in</title> </html>`,
      ),
    );
  });

  it('a 200 text/plain and a 200 JSON body are not streams either', async () => {
    const plain = await page(200, 'text/plain; charset=utf-8', 'OK');
    const r1 = await runToEnd(plain.server);
    expect(r1.log).toEqual(
      failed(
        r1.run,
        `${plain.what} answered 200 with text/plain; charset=utf-8, not an event stream: OK`,
      ),
    );
    const json = await page(200, 'application/json', '{"error":{"message":"quota exceeded"}}');
    const r2 = await runToEnd(json.server);
    expect(r2.log).toEqual(
      failed(
        r2.run,
        `${json.what} answered 200 with application/json, not an event stream: quota exceeded`,
      ),
    );
  });

  it('a 502 HTML page is quoted on one line, not taken as an error message', async () => {
    const { server, what } = await page(
      502,
      'text/html',
      '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n\t<body></body></html>',
    );
    const { run, log } = await runToEnd(server);
    expect(log).toEqual(
      failed(
        run,
        `${what} answered 502: <html> <head><title>502 Bad Gateway</title></head> <body></body></html>`,
      ),
    );
  });

  it('a JSON error body that is not the API shape is quoted, its fields not trusted', async () => {
    const { server, what } = await page(
      500,
      'application/json',
      '{"error":{"message":{"code":"unauthorized"}},"code":"thread_not_found"}',
    );
    const { run, log } = await runToEnd(server);
    expect(log).toEqual(
      failed(
        run,
        `${what} answered 500: {"error":{"message":{"code":"unauthorized"}},"code":"thread_not_found"}`,
      ),
    );
  });
});

describe('hostile OpenAI-compatible upstream: chunks of the wrong shape', () => {
  const cases: Array<[string, string[], string]> = [
    ['data: null', ['null'], 'sent a chunk that is not a JSON object: null'],
    ['invalid JSON', ['{"choices":['], 'sent data that is not JSON: {"choices":['],
    [
      'choices not an array',
      ['{"choices":{"0":{}}}'],
      'sent a chunk whose "choices" is not an array',
    ],
    [
      'delta.content a number',
      [delta({ content: 42 })],
      'sent a "delta.content" that is a number, not text',
    ],
    [
      'an in-stream error of the API shape',
      ['{"error":{"message":"rate limited\\nretry later"}}'],
      'sent an error: rate limited retry later',
    ],
    [
      'an in-stream error not of the API shape',
      ['{"error":["boom"]}'],
      `sent an error not in the API's error shape: ["boom"]`,
    ],
    [
      'a negative tool call index',
      [delta({ tool_calls: [{ index: -1, id: 'c', function: { name: 'f' } }] })],
      'sent tool call index -1 (calls are numbered 0 to 7: maxToolCalls)',
    ],
    [
      'a huge tool call index',
      [delta({ tool_calls: [{ index: 1e12, id: 'c', function: { name: 'f' } }] })],
      'sent tool call index 1000000000000 (calls are numbered 0 to 7: maxToolCalls)',
    ],
    [
      'a tool call id that is an object',
      [delta({ tool_calls: [{ index: 0, id: { x: 1 }, function: { name: 'f' } }] })],
      'sent a tool call id that is not text of 1 to 256 characters',
    ],
    [
      'thousands of parallel tool calls',
      [
        delta({
          tool_calls: Array.from({ length: 5000 }, (_, index) => ({
            index,
            id: `c${index}`,
            function: { name: 'f', arguments: '{}' },
          })),
        }),
      ],
      'sent 5000 tool calls at once (at most 8: maxToolCalls)',
    ],
  ];
  for (const [name, data, problem] of cases) {
    it(`${name}: upstream_failed saying so`, async () => {
      const { server, what } = await stream(...data);
      const { run, log } = await runToEnd(server);
      expect(log).toEqual(failed(run, `${what} ${problem}`));
    });
  }

  it('tool call ids __proto__ and constructor are data: two calls, two interrupts', async () => {
    const call = (index: number, id: string) =>
      chunk({ tool_calls: [{ index, id, function: { name: 'f', arguments: '{}' } }] });
    const { server } = await openai((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end(`${call(0, '__proto__')}${call(1, 'constructor')}${chunk({}, 'tool_calls')}`);
    });
    const { run, log } = await runToEnd(server);
    const tool = (id: string) => [
      {
        type: 'TOOL_CALL_START',
        toolCallId: id,
        toolCallName: 'f',
        parentMessageId: `msg-${run.runId}`,
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: id, delta: '{}' },
    ];
    expect(log).toEqual([
      { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
      ...tool('__proto__'),
      ...tool('constructor'),
      { type: 'TOOL_CALL_END', toolCallId: '__proto__' },
      { type: 'TOOL_CALL_END', toolCallId: 'constructor' },
      {
        type: 'RUN_FINISHED',
        threadId: run.threadId,
        runId: run.runId,
        outcome: {
          type: 'interrupt',
          interrupts: ['__proto__', 'constructor'].map((id) => ({
            id: `tool-${id}`,
            reason: 'client_tool',
            toolCallId: id,
            message: 'Run f in the page',
          })),
        },
      },
    ]);
  });

  const twice: Array<[string, string, string, string]> = [
    ['under one id', 'same', 'same', 'sent two tool calls with the id "same"'],
    [
      'whose ids make one interrupt id',
      'a/b',
      'a_b',
      'sent two tool calls with the id "a_b" (as an interrupt: tool-a_b)',
    ],
  ];
  for (const [name, first, second, problem] of twice) {
    it(`two tool calls ${name}: upstream_failed, not one interrupt answering both`, async () => {
      const { server, what } = await stream(
        delta({ tool_calls: [{ index: 0, id: first, function: { name: 'f' } }] }),
        delta({ tool_calls: [{ index: 1, id: second, function: { name: 'g' } }] }),
      );
      const { run, log } = await runToEnd(server);
      const [started, error] = failed(run, `${what} ${problem}`);
      const parentMessageId = `msg-${run.runId}`;
      expect(log).toEqual([
        started,
        { type: 'TOOL_CALL_START', toolCallId: first, toolCallName: 'f', parentMessageId },
        error,
      ]);
    });
  }

  it('[DONE] missing after a finish_reason: the answer is complete, nothing more is awaited', async () => {
    const { server } = await openai((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      // The stream stays open after its last chunk (for idleTimeoutMs: 10 s).
      res.write(`${chunk({ content: 'Done.' })}${chunk({}, 'stop')}`);
    }, 10_000);
    const { run, log, elapsed } = await runToEnd(server);
    const messageId = `msg-${run.runId}`;
    expect(log).toEqual(
      textLog(run, ['Done.'], { type: 'TEXT_MESSAGE_END', messageId }).concat({
        type: 'RUN_FINISHED',
        threadId: run.threadId,
        runId: run.runId,
        outcome: { type: 'success' },
      }),
    );
    expect(elapsed).toBeLessThan(5_000);
  });

  it('[DONE] and finish_reason both missing: upstream_failed once the stream ends', async () => {
    const { server, what } = await openai((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end(frame({ choices: [] }));
    });
    const { run, log } = await runToEnd(server);
    expect(log).toEqual(failed(run, `${what} ended its stream before finishing`));
  });
});
