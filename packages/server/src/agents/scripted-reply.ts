const WORDS = (
  'resume offset stream replay durable event log client server token reload network ' +
  'thread run answer chunk cursor snapshot fold retry backoff signal heartbeat queue ' +
  'order exactly once store append tail reader writer record state message delta'
).split(' ');

/**
 * The scripted reply as exactly `count` deltas, made one at a time (a reply of a million
 * tokens costs no more memory than one of ten): a heading quoting the prompt, filler
 * words, and a fenced code block derived from the prompt at the end (when `count` leaves
 * room for it). `lead` (the tool's answer) comes right after the heading.
 */
export function* replyTokenStream(
  prompt: string,
  count: number,
  seed = 0,
  lead: readonly string[] = [],
): Generator<string> {
  const topic = prompt.trim().replace(/\s+/g, ' ').slice(0, 80) || 'your question';
  const head = ['## ', 'Answer ', 'to: ', `${topic.replace(/[#`]/g, '')}\n\n`];
  const ident = identifierOf(topic);
  const code = [
    '\n\n```ts\n',
    `const ${ident} = `,
    `${JSON.stringify(topic)};\n`,
    `console.log(${ident}.length); `,
    `// ${topic.length}\n`,
    '```\n',
  ];
  let sent = 0;
  for (const t of [...head, ...lead]) {
    if (sent === count) return;
    sent++;
    yield t;
  }
  const fillers = Math.max(0, count - sent - code.length);
  const random = mulberry32(hash(topic) ^ seed);
  for (let i = 0; i < fillers; i++) {
    const word = WORDS[Math.floor(random() * WORDS.length)]!;
    const end = i === fillers - 1 ? '.' : i % 12 === 11 ? '. ' : ' ';
    sent++;
    yield i % 12 === 0 ? word[0]!.toUpperCase() + word.slice(1) + end : word + end;
  }
  for (const t of code) {
    if (sent === count) return;
    sent++;
    yield t;
  }
}

/** `replyTokenStream` as an array (tests and the expected logs they compare with). */
export function replyTokens(
  prompt: string,
  count: number,
  seed = 0,
  lead: readonly string[] = [],
): string[] {
  return [...replyTokenStream(prompt, count, seed, lead)];
}

/** The reply's first sentence when `get_time` answered `time` (an ISO string). */
export function timeLead(time: string): string[] {
  return ['It is ', `**${time.slice(11, 16)} UTC** `, `on ${time.slice(0, 10)}. `];
}

function identifierOf(text: string): string {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const ident = words
    .slice(0, 3)
    .map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1)))
    .join('');
  return /^[a-z]/.test(ident) ? ident : `answer${ident}`;
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * mulberry32: a tiny seeded PRNG returning numbers in [0, 1), so a seeded script
 * (or a seeded test schedule) replays exactly from its seed.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
