import { type Message, messageText, type RunAgentInput } from '@resumable/protocol';
import { jsonSchema, type ModelMessage, type ToolSet, tool, type UserContent } from 'ai';
import { hasFileParts, type PromptPart, promptParts } from '../files/prompt-files.js';
import type { ReadFile } from '../files/references.js';

/** A run's AG-UI input as `streamText` prompt fields: spread it into the call. */
export interface AiSdkPrompt {
  /** System and developer messages, and the run's `context`, joined (undefined when none). */
  instructions: string | undefined;
  /** The conversation as the AI SDK's model messages (`streamText({ messages })`). */
  messages: ModelMessage[];
}

/**
 * AG-UI messages as AI SDK model messages. System and developer messages become
 * `instructions` (the AI SDK refuses them inside `messages` by default); assistant tool
 * calls become `tool-call` parts and tool messages `tool-result` parts; reasoning and
 * activity messages are UI state, not model input, and are left out.
 */
export async function toModelPrompt(
  input: RunAgentInput,
  readFile?: ReadFile,
): Promise<AiSdkPrompt> {
  const instructions: string[] = [];
  const messages: ModelMessage[] = [];
  /** toolCallId → tool name: a tool result names its tool in the AI SDK. */
  const toolNames = new Map<string, string>();
  for (const m of input.messages as Message[]) {
    switch (m.role) {
      case 'system':
      case 'developer':
        instructions.push(messageText(m));
        break;
      case 'user':
        messages.push({
          role: 'user',
          content: hasFileParts(m) ? userContent(await promptParts(m, readFile)) : messageText(m),
        });
        break;
      case 'assistant': {
        const content: Array<
          | { type: 'text'; text: string }
          | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
        > = [];
        if (typeof m.content === 'string' && m.content !== '') {
          content.push({ type: 'text', text: m.content });
        }
        for (const call of m.toolCalls ?? []) {
          toolNames.set(call.id, call.function.name);
          content.push({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.function.name,
            input: parseArguments(call.function.arguments),
          });
        }
        if (content.length > 0) messages.push({ role: 'assistant', content });
        break;
      }
      case 'tool':
        messages.push({
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: m.toolCallId,
              toolName: toolNames.get(m.toolCallId) ?? 'unknown',
              output: { type: 'text', value: messageText(m) },
            },
          ],
        });
        break;
      default:
        break;
    }
  }
  if (input.context.length > 0) {
    instructions.push(
      `Context:\n${input.context.map((c) => `- ${c.description}: ${c.value}`).join('\n')}`,
    );
  }
  return {
    instructions: instructions.length > 0 ? instructions.join('\n\n') : undefined,
    messages,
  };
}

/**
 * The run's AG-UI `tools` (tools the client runs) as AI SDK tools without `execute`: the
 * model may call them, the run ends with a `client_tool` interrupt per call, and the client
 * answers them in the next run's `resume` (or with tool messages).
 */
export function clientTools(input: RunAgentInput): ToolSet {
  // Tool names are data: a null-prototype object, so `__proto__` is just a name.
  const tools: ToolSet = Object.create(null);
  for (const t of input.tools) {
    tools[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema(
        t.parameters && typeof t.parameters === 'object'
          ? t.parameters
          : { type: 'object', properties: {} },
      ),
    });
  }
  return tools;
}

/**
 * A user turn with files: each file (image or PDF) as a `file` part of its media type (the
 * `image` part is deprecated in AI SDK 7), with the bytes read from the store (the model
 * cannot fetch the token-protected URL).
 */
function userContent(parts: PromptPart[]): UserContent {
  return parts.map((part) => {
    if (part.kind === 'text') return { type: 'text' as const, text: part.text };
    const { file, bytes } = part;
    return {
      type: 'file' as const,
      data: { type: 'data' as const, data: bytes },
      mediaType: file.mimeType,
      filename: file.name,
    };
  });
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A model's malformed arguments go back as they were, for it to see.
    return text;
  }
}
