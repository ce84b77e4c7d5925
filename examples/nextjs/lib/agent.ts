import { anthropic } from '@ai-sdk/anthropic';
import { openai } from '@ai-sdk/openai';
import { type Agent, scriptedAgent } from '@resumable/server';
import { aiSdkAgent } from '@resumable/server/ai-sdk';
import { type LanguageModel, streamText } from 'ai';

/**
 * Who answers: a real model when a key is set (`OPENAI_API_KEY`, else `ANTHROPIC_API_KEY`;
 * `OPENAI_MODEL` / `ANTHROPIC_MODEL` pick the model), through the AI SDK; otherwise the
 * kit's scripted agent, which needs no key and no network (`SCRIPTED_TOKENS` and
 * `SCRIPTED_TPS` set its length and pace).
 */
export function pickAgent(env = process.env): Agent {
  if (env.OPENAI_API_KEY) return modelAgent(openai.chat(env.OPENAI_MODEL || 'gpt-4o-mini'));
  if (env.ANTHROPIC_API_KEY)
    return modelAgent(anthropic(env.ANTHROPIC_MODEL || 'claude-haiku-4-5'));
  return scriptedAgent();
}

function modelAgent(model: LanguageModel): Agent {
  return aiSdkAgent(({ instructions, messages, tools, signal }) =>
    streamText({
      model,
      instructions,
      messages,
      tools,
      // Stop (`POST /api/runs/:id/cancel`) aborts the provider call.
      abortSignal: signal,
      maxOutputTokens: 4096,
    }),
  );
}
