/**
 * The long showcase answer `pnpm bench ui` streams: what a model writes when asked for a
 * thorough answer — sections with a heading, paragraphs with bold, italics, inline code and
 * links, a numbered and a bulleted list, a five-column table, a quote and a code block (in
 * TypeScript, Python, Bash or JSON, in turn) — repeated with varied words until it reaches
 * `chars` characters. Deterministic: every renderer and every run streams the same text.
 */

const TOPICS = [
  'reloads',
  'dropped networks',
  'second tabs',
  'server restarts',
  'offline prompts',
  'slow proxies',
  'stale caches',
  'phone sleep',
  'load balancers',
  'deploys',
  'rate limits',
  'long answers',
  'tool calls',
  'approvals',
  'attachments',
  'regenerations',
];

const CODE = [
  (topic: string, n: number) =>
    [
      '```ts',
      `// ${topic}: resume from the last applied offset.`,
      `const chat = useResumableChat({ endpoint: '/api', threadId: 'thread-${n}' });`,
      `await chat.send('What happens after ${topic}?');`,
      `for (const message of chat.messages) console.log(message.id, message.role);`,
      `console.log(chat.connection.offset); // ${n * 42}`,
      '```',
    ].join('\n'),
  (topic: string, n: number) =>
    [
      '```python',
      `def events_after(log, offset):`,
      `    """Every event after \`offset\`, in order (${topic})."""`,
      `    return [e for e in log if e["offset"] > offset]`,
      '',
      `print(len(events_after(log, ${n * 7})))`,
      '```',
    ].join('\n'),
  (topic: string, n: number) =>
    [
      '```bash',
      `# ${topic}: read the run's events after offset ${n * 3}`,
      `curl -N "http://127.0.0.1:8787/api/runs/run-${n}/events?after=${n * 3}" \\`,
      `  -H "Authorization: Bearer $TOKEN" | head -n ${n + 10}`,
      '```',
    ].join('\n'),
  (topic: string, n: number) =>
    [
      '```json',
      `{ "topic": "${topic}", "offset": ${n * 11}, "events": [`,
      `  { "type": "TEXT_MESSAGE_CONTENT", "delta": "Hello" },`,
      `  { "type": "RUN_FINISHED", "result": null }`,
      `] }`,
      '```',
    ].join('\n'),
];

function section(n: number): string {
  const topic = TOPICS[n % TOPICS.length]!;
  const other = TOPICS[(n + 5) % TOPICS.length]!;
  return `## ${n + 1}. What happens with ${topic}

Every event of a run is written to a **durable log** with an *offset*. After ${topic} the page
asks for everything **after** the offset it has applied — and nothing twice. See the
[protocol](https://example.com/docs/protocol#${n}) and \`GET /runs/:id/events\` for the details.

1. The server answers \`201\` at once and starts run ${n + 1}.
2. The answer streams as events, each one with its offset.
3. The page folds them into messages and saves the last offset.
4. After ${topic} it shows the saved transcript and resumes.

- No token is lost, none is doubled, even with ${other}.
- **Stop** cancels the run on the server, not just the connection.
- A *second tab* follows the same run without a second model call.

| what breaks | what you see | what the page does | how long | test |
| --- | --- | --- | --- | --- |
| ${topic} | the answer, at once | resumes after offset ${n * 42} | < 1 s | \`e2e/${n}\` |
| ${other} | "offline", then the rest | retries when back | 1–8 s | \`e2e/${n + 1}\` |
| server restarts | "can't reach the server" | backs off, then resumes | 2 s | \`e2e/${n + 2}\` |
| a deploy | nothing | resumes on the new server | < 1 s | \`e2e/${n + 3}\` |

> A resumable stream is an append-only log plus a cursor: the rest is bookkeeping (${topic}).

${CODE[n % CODE.length]!(topic, n)}

That is all there is to ${topic}: ask again, from where you were.

`;
}

/** The answer: whole sections until it holds at least `chars` characters. */
export function showcaseAnswer(chars: number): string {
  let text = '# Surviving everything a network does\n\n';
  for (let n = 0; text.length < chars; n++) text += section(n);
  return text;
}

/** Words with their trailing space: the deltas a model sends (as the scripted agent does). */
export function answerTokens(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}
