import { type Agent, scriptedAgent } from '@resumable/server';
import { aiSdkAgent } from '@resumable/server/ai-sdk';
import { streamText } from 'ai';

export type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';
export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';
const MAX_OUTPUT_TOKENS = 4096;
const SYSTEM = 'You are the assistant of a demo chat. Answer in Markdown.';

/**
 * The demo's agent, chosen by the environment: `RESUMABLE_AGENT` (`scripted`, `openai`,
 * `anthropic`) when set; else OpenAI when `OPENAI_API_KEY` is set, Anthropic when
 * `ANTHROPIC_API_KEY` is; else the scripted agent, which needs no network. The models run
 * through the AI SDK (`@resumable/server/ai-sdk`); `OPENAI_MODEL` / `ANTHROPIC_MODEL`
 * override the model and `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` the endpoint.
 *
 * A provider package is imported only when chosen: importing `@ai-sdk/openai` builds its
 * default provider from the environment, and throws on an empty `OPENAI_BASE_URL`.
 */
export async function pickAgent(env: Env = process.env): Promise<{ name: string; agent: Agent }> {
  const wanted =
    env.RESUMABLE_AGENT ||
    (env.OPENAI_API_KEY ? 'openai' : env.ANTHROPIC_API_KEY ? 'anthropic' : 'scripted');
  if (wanted === 'scripted') return { name: 'scripted', agent: scriptedAgent() };
  if (wanted === 'openai') {
    const modelId = env.OPENAI_MODEL || DEFAULT_OPENAI_MODEL;
    const { createOpenAI } = await import('@ai-sdk/openai');
    const provider = createOpenAI({
      ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
      ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
    });
    // Chat Completions rather than the Responses API: OPENAI_BASE_URL may point at any
    // OpenAI-compatible server (vLLM, Ollama, a gateway), and they all speak it.
    return { name: `openai ${modelId}`, agent: modelAgent(provider.chat(modelId), 'openai') };
  }
  if (wanted === 'anthropic') {
    const modelId = env.ANTHROPIC_MODEL || DEFAULT_ANTHROPIC_MODEL;
    const { createAnthropic } = await import('@ai-sdk/anthropic');
    const provider = createAnthropic({
      ...(env.ANTHROPIC_API_KEY ? { apiKey: env.ANTHROPIC_API_KEY } : {}),
      ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}),
    });
    return { name: `anthropic ${modelId}`, agent: modelAgent(provider(modelId), 'anthropic') };
  }
  throw new Error(`RESUMABLE_AGENT=${wanted}: use scripted, openai or anthropic`);
}

type Model = Parameters<typeof streamText>[0]['model'];

function modelAgent(model: Model, provider: string): Agent {
  return aiSdkAgent(
    ({ instructions, messages, tools, signal }) =>
      streamText({
        model,
        instructions: instructions ? `${SYSTEM}\n\n${instructions}` : SYSTEM,
        messages,
        tools,
        abortSignal: signal,
        // A bound on each answer's cost (and Anthropic needs one for unknown models).
        maxOutputTokens: MAX_OUTPUT_TOKENS,
        // The run's RUN_ERROR reports failures; the console would only repeat them.
        onError: () => {},
      }),
    { provider },
  );
}
