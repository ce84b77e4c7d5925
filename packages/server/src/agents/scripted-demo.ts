import type { AGUIEvent, RunAgentInput } from '@resumable/protocol';
import { EventType } from '@resumable/protocol';
import { sleep } from '../sleep.js';

/**
 * The scripted agent's showcase reply (`SCRIPTED_REPLY=demo`, or `forwardedProps.script.reply:
 * "demo"`): what a real model does, offline and deterministic, so every part of the chat UI
 * shows — streamed reasoning, a tool call with its arguments and result, then a Markdown
 * answer with headings, a list, a table, a quote and code in two languages.
 */

const REASONING =
  'The user wants to know how the chat survives a reload. I should look up how resuming ' +
  'works, then explain offsets, show the client side in TypeScript and the server side in ' +
  'Python, and compare the failure cases in a table.';

const ANSWER = `## How this chat survives a reload

Every event of a run is written to a **durable log** with an *offset*. The page keeps the
offset it has applied, so after a reload, a dropped connection or a server restart it asks
for everything **after** it — and nothing twice.

### What happens, step by step

1. You send a prompt; the server starts a run and answers \`201\` at once.
2. The answer streams as events, each one with its offset.
3. The page folds them into messages and saves the last offset.
4. On reload it reads the saved transcript, shows it, and resumes from the offset.

- No token is lost, none is doubled.
- Stop cancels the run on the server, not just the connection.

| what breaks        | what you see                    | what the page does       |
| ------------------ | ------------------------------- | ------------------------ |
| reload             | the answer, at once             | resumes after its offset |
| Wi-Fi drops        | "offline", then the rest        | retries when back        |
| server restarts    | "can't reach the server"        | backs off, then resumes  |

> A resumable stream is an append-only log plus a cursor: the rest is bookkeeping.

The client side, in TypeScript:

\`\`\`ts
const chat = useResumableChat({ endpoint: '/api' });
// After a reload this resumes where the page left off.
await chat.send('How does this chat survive a reload?');
console.log(chat.connection.offset); // the last applied offset
\`\`\`

And a server reading the same log, in Python:

\`\`\`python
def events_after(log, offset):
    """Every event after \`offset\`, in order."""
    return [e for e in log if e["offset"] > offset]

print(len(events_after(log, 42)))
\`\`\`

That is all there is to it: ask again, from where you were.
`;

/**
 * The showcase's human in the loop: a prompt that says "delete" or "approve" gets a
 * `delete_file` call that waits for approval (Approve / Deny in the chat).
 */
export function demoInterruptFor(prompt: string): 'tool_approval' | undefined {
  return /\b(delete|approve)\b/i.test(prompt) ? 'tool_approval' : undefined;
}

/** Words with their trailing space: the deltas a model would send. */
function tokens(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

export async function* demoReply(
  input: RunAgentInput,
  signal: AbortSignal,
  tokensPerSecond: number,
): AsyncGenerator<AGUIEvent> {
  const id = input.runId;
  const interval = tokensPerSecond > 0 ? 1000 / tokensPerSecond : 0;
  const started = performance.now();
  let sent = 0;
  /** Paced against the start, as the filler reply is, so timer lateness does not add up. */
  const pace = async () => {
    const wait = started + sent++ * interval - performance.now();
    if (wait > 1) await sleep(wait, signal);
    return !signal.aborted;
  };

  const reasoningId = `reasoning-${id}`;
  yield { type: EventType.REASONING_MESSAGE_START, messageId: reasoningId, role: 'reasoning' };
  for (const delta of tokens(REASONING)) {
    if (!(await pace())) return;
    yield { type: EventType.REASONING_MESSAGE_CONTENT, messageId: reasoningId, delta };
  }
  yield { type: EventType.REASONING_MESSAGE_END, messageId: reasoningId };

  // The tool call is a message of its own before the answer, as models send it.
  const messageId = `msg-${id}`;
  const toolCallId = `call-${id}`;
  yield {
    type: EventType.TOOL_CALL_START,
    toolCallId,
    toolCallName: 'search_docs',
    parentMessageId: `msg-tools-${id}`,
  };
  for (const delta of ['{"query":', '"resume after ', 'reload",', '"limit":', '2}']) {
    if (!(await pace())) return;
    yield { type: EventType.TOOL_CALL_ARGS, toolCallId, delta };
  }
  yield { type: EventType.TOOL_CALL_END, toolCallId };
  yield {
    type: EventType.TOOL_CALL_RESULT,
    messageId: `tool-${id}`,
    toolCallId,
    role: 'tool',
    content: JSON.stringify({
      results: [
        { title: 'Resuming a run', path: 'docs/protocol.md#resuming' },
        { title: 'Offsets', path: 'docs/protocol.md#offsets' },
      ],
    }),
  };

  yield { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' };
  for (const delta of tokens(ANSWER)) {
    if (!(await pace())) return;
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta };
  }
  yield { type: EventType.TEXT_MESSAGE_END, messageId };
}
