import type { Message, RunAgentInput } from '@resumable/protocol';
import { MAX_RESUME_ENTRIES, messageText, ResumableError } from '@resumable/protocol';
import { dataUrl, hasFileParts, type PromptPart, promptParts } from '../files/prompt-files.js';
import type { ReadFile } from '../files/references.js';
import { OpenAIAnswer } from './openai-answer.js';
import { openaiErrorMessage, parseChunk } from './openai-chunks.js';
import { readSse, type UpstreamTimeouts, upstreamTimeouts } from './sse-reader.js';
import { type ClientToolAnswer, clientToolAnswers, clientToolResult } from './tool-interrupts.js';
import type { Agent } from './types.js';
import { fetchUpstream } from './upstream-fetch.js';
import { describeUrl, redactor } from './upstream-secrets.js';

/**
 * Which OpenAI-compatible endpoint `openaiAgent` streams from, with what model and key,
 * and how long it waits (`UpstreamTimeouts`). Unset options fall back to the environment.
 */
export interface OpenAIAgentOptions extends UpstreamTimeouts {
  /**
   * Base URL of an OpenAI-compatible API (`…/v1`); `/chat/completions` is appended.
   * @default env OPENAI_BASE_URL, else 'https://api.openai.com/v1'
   */
  baseUrl?: string;
  /**
   * Sent as `Authorization: Bearer <apiKey>`; none is sent without one (a local endpoint).
   * Kept out of every stored error message.
   * @default env OPENAI_API_KEY
   */
  apiKey?: string;
  /**
   * The request's `model`.
   * @default env OPENAI_MODEL, else 'gpt-4o-mini'
   */
  model?: string;
  /** Extra fields for the request body (temperature, max_tokens…). */
  body?: Record<string, unknown>;
  /**
   * The `fetch` the endpoint is called with (a proxy agent, a test's fake upstream).
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /**
   * Most tool calls one answer may make (each is a `client_tool` interrupt); a stream with
   * more, or a tool call index outside 0…maxToolCalls-1, ends the run `upstream_failed`.
   * Capped at `MAX_RESUME_ENTRIES` (100): one continuation answers every open interrupt,
   * and it takes at most that many answers.
   * @default 100 (MAX_RESUME_ENTRIES)
   */
  maxToolCalls?: number;
}

/**
 * Any OpenAI-compatible Chat Completions endpoint, streamed: text deltas become
 * `TEXT_MESSAGE_*`, tool-call deltas `TOOL_CALL_*`, the model's thinking
 * (`reasoning_content` / `reasoning`) `REASONING_MESSAGE_*` (see openai-answer.ts; never
 * sent back to the model on a later turn). The tools are the client's (`tools`):
 * a run that calls them ends with a `client_tool` interrupt per call, and the
 * continuation's `resume` answers go to the model as tool messages. Errors of the endpoint
 * end the run with `code:"upstream_failed"`.
 */
export function openaiAgent(options: OpenAIAgentOptions = {}): Agent {
  const baseUrl = (
    options.baseUrl ??
    process.env.OPENAI_BASE_URL ??
    'https://api.openai.com/v1'
  ).replace(/\/+$/, '');
  const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY;
  const model = options.model ?? process.env.OPENAI_MODEL ?? 'gpt-4o-mini';
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const { timeoutMs, ...bounds } = upstreamTimeouts(options);
  // More calls than one POST /runs can answer would leave interrupts no continuation takes.
  const maxToolCalls = Math.min(options.maxToolCalls ?? MAX_RESUME_ENTRIES, MAX_RESUME_ENTRIES);
  // Messages are stored for the thread's readers: the URL's query (a key) stays out.
  const what = `the OpenAI-compatible endpoint ${describeUrl(baseUrl)}`;
  const authorization: Record<string, string> = apiKey ? { Authorization: `Bearer ${apiKey}` } : {};
  // An in-stream error may quote the request back: the key never reaches a message.
  const redact = redactor(baseUrl, authorization);
  return async function* (input, { signal, readFile, keepAlive }) {
    const answers = clientToolAnswers(input, calledTools(input));
    for (const [toolCallId, answer] of answers) yield clientToolResult(toolCallId, answer);
    const tools = input.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    const response = await fetchUpstream(
      fetchImpl,
      `${baseUrl}/chat/completions`,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'text/event-stream',
          ...authorization,
        },
        body: JSON.stringify({
          model,
          stream: true,
          messages: await toChatMessages(input, answers, readFile),
          ...(tools.length > 0 ? { tools } : {}),
          ...options.body,
        }),
        signal,
      },
      what,
      timeoutMs,
      openaiErrorMessage,
    );

    const answer = new OpenAIAnswer(input.runId, what, maxToolCalls);
    let finished = false;
    for await (const message of readSse(response, what, bounds, keepAlive)) {
      if (message.data.trim() === '[DONE]') {
        finished = true;
        break;
      }
      const delta = parseChunk(message.data, what, maxToolCalls, redact);
      yield* answer.push(delta);
      // The answer is complete: what may follow (a usage chunk, `[DONE]`) is not waited for.
      if (delta.finished) {
        finished = true;
        break;
      }
    }
    if (signal.aborted) return;
    if (!finished) {
      throw new ResumableError('upstream_failed', `${what} ended its stream before finishing`);
    }
    yield* answer.finish(input.threadId);
  };
}

/** Ids of the tool calls in the conversation (a continuation's answers refer to them). */
function calledTools(input: RunAgentInput): string[] {
  return (input.messages as Message[]).flatMap((m) =>
    m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : [],
  );
}

/**
 * AG-UI messages (and context) as Chat Completions messages; a browser's `answers` to tool
 * calls follow the assistant message that made the calls. A user turn that names files
 * gets content parts: images as `image_url` data: URLs, other files (PDF) as `file` parts
 * with `file_data` — the bytes read from the store, since the API cannot fetch our URLs.
 */
export async function toChatMessages(
  input: RunAgentInput,
  answers: ReadonlyMap<string, ClientToolAnswer> = new Map(),
  readFile?: ReadFile,
): Promise<unknown[]> {
  const out: unknown[] = [];
  if (input.context.length > 0) {
    out.push({
      role: 'system',
      content: `Context:\n${input.context.map((c) => `- ${c.description}: ${c.value}`).join('\n')}`,
    });
  }
  for (const m of input.messages as Message[]) {
    switch (m.role) {
      case 'user':
        if (hasFileParts(m)) {
          out.push({ role: 'user', content: chatParts(await promptParts(m, readFile)) });
          break;
        }
        out.push({ role: m.role, content: messageText(m) });
        break;
      case 'system':
      case 'developer':
        out.push({ role: m.role, content: messageText(m) });
        break;
      case 'assistant':
        out.push({
          role: 'assistant',
          content: m.content ?? null,
          ...(m.toolCalls && m.toolCalls.length > 0
            ? {
                tool_calls: m.toolCalls.map((c) => ({
                  id: c.id,
                  type: 'function',
                  function: { name: c.function.name, arguments: c.function.arguments },
                })),
              }
            : {}),
        });
        for (const call of m.toolCalls ?? []) {
          const answer = answers.get(call.id);
          if (!answer) continue;
          const content = JSON.stringify('result' in answer ? answer.result : answer);
          out.push({ role: 'tool', tool_call_id: call.id, content });
        }
        break;
      case 'tool':
        out.push({ role: 'tool', tool_call_id: m.toolCallId, content: messageText(m) });
        break;
      default:
        // Activity and reasoning messages are UI state, not model input.
        break;
    }
  }
  return out;
}

function chatParts(parts: PromptPart[]): unknown[] {
  return parts.map((part) => {
    if (part.kind === 'text') return { type: 'text', text: part.text };
    const url = dataUrl(part.file, part.bytes);
    return part.file.mimeType.startsWith('image/')
      ? { type: 'image_url', image_url: { url } }
      : { type: 'file', file: { filename: part.file.name, file_data: url } };
  });
}
