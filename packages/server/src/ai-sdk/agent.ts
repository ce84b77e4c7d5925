import type { RunAgentInput } from '@resumable/protocol';
import type { ToolSet } from 'ai';
import type { Agent } from '../agents/types.js';
import { type AiSdkStreamPart, aiSdkEvents } from './events.js';
import { type AiSdkPrompt, clientTools, toModelPrompt } from './messages.js';

/** What `aiSdkAgent`'s function receives for one run. */
export interface AiSdkCall extends AiSdkPrompt {
  /** The run's AG-UI input as posted (threadId, runId, state, forwardedProps…). */
  input: RunAgentInput;
  /** The tools the client declared, as AI SDK tools without `execute` (the client runs them). */
  tools: ToolSet;
  /** Aborted on cancel or shutdown: pass it as `streamText({ abortSignal })`. */
  signal: AbortSignal;
}

/** A `streamText` result, or any async iterable of its parts (its `fullStream`). */
export type AiSdkStream =
  | { fullStream: AsyncIterable<AiSdkStreamPart> }
  | AsyncIterable<AiSdkStreamPart>;

export interface AiSdkAgentOptions {
  /**
   * Provider name reported with the usage on `RUN_FINISHED` (e.g. `'openai'`).
   * @default undefined
   */
  provider?: string;
}

/**
 * Any AI SDK model as a resumable agent: `run` calls `streamText` (with `abortSignal:
 * signal`, so cancel aborts the provider call) and its parts become AG-UI events.
 *
 * ```ts
 * aiSdkAgent(({ instructions, messages, tools, signal }) =>
 *   streamText({ model: openai('gpt-4o-mini'), instructions, messages, tools, abortSignal: signal }));
 * ```
 */
export function aiSdkAgent(
  run: (call: AiSdkCall) => AiSdkStream | Promise<AiSdkStream>,
  options: AiSdkAgentOptions = {},
): Agent {
  return async function* (input, { signal, readFile }) {
    const prompt = await toModelPrompt(input, readFile);
    const stream = await run({ ...prompt, input, tools: clientTools(input), signal });
    const parts = 'fullStream' in stream ? stream.fullStream : stream;
    yield* aiSdkEvents(parts, {
      runId: input.runId,
      threadId: input.threadId,
      signal,
      ...(options.provider === undefined ? {} : { provider: options.provider }),
    });
  };
}
