import type { RunAgentInput } from '@resumable/protocol';
import type { ToolSet } from 'ai';
import type { Agent } from '../agents/types.js';
import { type AiSdkStreamPart, aiSdkEvents } from './events.js';
import { withResume } from './interrupts.js';
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

/** `aiSdkAgent`'s options. */
export interface AiSdkAgentOptions {
  /**
   * Provider name reported with the usage on `RUN_FINISHED` (e.g. `'openai'`).
   * @default undefined
   */
  provider?: string;
}

/**
 * Any AI SDK model as a resumable agent: `run` calls `streamText` (with `abortSignal:
 * signal`, so cancel aborts the provider call) and its parts become AG-UI events. Tools
 * with `needsApproval` and client-side tools end the run with interrupts; the
 * continuation's `resume` reaches the model as approval responses and tool results.
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
    // A continuation: the answers to the interrupts go into the prompt as the SDK expects.
    const resumed = withResume(prompt.messages, input);
    yield* resumed.events;
    const call = {
      ...prompt,
      messages: resumed.messages,
      input,
      tools: clientTools(input),
      signal,
    };
    const stream = await run(call);
    const parts = 'fullStream' in stream ? stream.fullStream : stream;
    yield* aiSdkEvents(parts, {
      runId: input.runId,
      threadId: input.threadId,
      signal,
      ...(options.provider === undefined ? {} : { provider: options.provider }),
    });
  };
}
