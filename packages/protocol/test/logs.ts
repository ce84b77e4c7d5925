/**
 * Valid AG-UI run logs for the property tests, built from a fast-check plan: RUN_STARTED,
 * then text / reasoning / tool-call messages whose events interleave, `*_CHUNK` blocks,
 * state snapshots and deltas, steps, activities, app events, and a terminal event.
 *
 * Beside each log the builder records which message or tool call each delta extends, so a
 * test can say what text a client that joined at offset k must end up with.
 */
import fc from 'fast-check';
import type { AGUIEvent, Envelope } from '../src/index.js';
import { toEnvelopes } from '../src/index.js';

type TextRole = 'assistant' | 'user' | 'system' | 'developer';

interface ChunkStep {
  delta: string | undefined;
  /** Repeat the id on this chunk (the first chunk of a block always carries it). */
  withId: boolean;
}

type Stream =
  | { kind: 'text'; role: TextRole; name: string | undefined; deltas: string[]; end: boolean }
  | { kind: 'reasoning'; phase: boolean; deltas: string[]; end: boolean }
  | {
      kind: 'tool';
      name: string;
      parent: 'none' | 'previous' | 'fresh';
      deltas: string[];
      end: boolean;
      result: string | undefined;
    };

type Block =
  | { kind: 'textChunks'; role: TextRole | undefined; steps: ChunkStep[] }
  | { kind: 'reasoningChunks'; steps: ChunkStep[] }
  | {
      kind: 'toolChunks';
      name: string;
      parent: 'none' | 'previous';
      steps: ChunkStep[];
    }
  | { kind: 'stateSnapshot'; value: Record<string, number> }
  | { kind: 'stateDelta'; ops: { op: 'add' | 'remove' | 'replace'; key: number; value: number }[] }
  | { kind: 'step'; name: string; finish: boolean }
  | { kind: 'custom'; name: string; value: number }
  | { kind: 'raw' }
  | { kind: 'activity'; keys: number[] }
  | { kind: 'messagesSnapshot'; contents: string[] }
  | { kind: 'junk'; which: 0 | 1 | 2 };

type Terminal =
  | { kind: 'success' }
  | { kind: 'cancelled' }
  | { kind: 'interrupt' }
  | { kind: 'error'; code: string | undefined }
  | { kind: 'none' };

export interface LogPlan {
  streams: Stream[];
  blocks: Block[];
  /** Drives the interleaving: which pending stream or block goes next. */
  picks: number[];
  terminal: Terminal;
}

/** What one delta in the log extends (for mid-stream join expectations). */
export interface Attribution {
  offset: number;
  target: 'message' | 'toolCall';
  id: string;
  delta: string;
  /**
   * For a chunk without an id: the offset of the latest chunk of its block that carried
   * the id. A client that joined after that offset cannot know whom the chunk extends.
   */
  idSince?: number;
}

export interface RunLog {
  envelopes: Envelope[];
  attributions: Attribution[];
  /** Ids of messages built from deltas (text, reasoning, text and reasoning chunks). */
  streamedMessageIds: string[];
  toolCallIds: string[];
}

const delta = fc.string({ maxLength: 4, unit: fc.constantFrom('a', 'b', 'é', '😀', '"', '\n') });
const deltas = fc.array(delta, { minLength: 0, maxLength: 8 });
const role = fc.constantFrom<TextRole>('assistant', 'assistant', 'user', 'system', 'developer');
const chunkSteps = fc.array(
  fc.record({ delta: fc.option(delta, { nil: undefined }), withId: fc.boolean() }),
  { minLength: 1, maxLength: 5 },
);

const stream: fc.Arbitrary<Stream> = fc.oneof(
  fc.record({
    kind: fc.constant('text' as const),
    role,
    name: fc.option(fc.constantFrom('ann', 'bot'), { nil: undefined }),
    deltas,
    end: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('reasoning' as const),
    phase: fc.boolean(),
    deltas,
    end: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('tool' as const),
    name: fc.constantFrom('search', 'weather'),
    parent: fc.constantFrom('none' as const, 'previous' as const, 'fresh' as const),
    deltas: fc.array(fc.constantFrom('{"q":', '"x"', '}', ' '), { maxLength: 4 }),
    end: fc.boolean(),
    result: fc.option(fc.constantFrom('ok', '42'), { nil: undefined }),
  }),
);

const block: fc.Arbitrary<Block> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('textChunks' as const),
      role: fc.option(role, { nil: undefined }),
      steps: chunkSteps,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('reasoningChunks' as const), steps: chunkSteps }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('toolChunks' as const),
      name: fc.constantFrom('search', 'weather'),
      parent: fc.constantFrom('none' as const, 'previous' as const),
      steps: chunkSteps,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('stateSnapshot' as const),
      value: fc.dictionary(fc.constantFrom('k0', 'k1', 'k2'), fc.integer({ min: 0, max: 9 }), {
        noNullPrototype: true,
      }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('stateDelta' as const),
      ops: fc.array(
        fc.record({
          op: fc.constantFrom('add' as const, 'remove' as const, 'replace' as const),
          key: fc.integer({ min: 0, max: 3 }),
          value: fc.integer({ min: 0, max: 9 }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('step' as const),
      name: fc.constantFrom('plan', 'act'),
      finish: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('custom' as const),
      name: fc.constantFrom('a', 'b'),
      value: fc.nat(9),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'raw' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('activity' as const),
      keys: fc.array(fc.nat(3), { maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('messagesSnapshot' as const),
      contents: fc.array(delta, { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('junk' as const),
      which: fc.constantFrom(0 as const, 1 as const, 2 as const),
    }),
  },
);

const terminal: fc.Arbitrary<Terminal> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'success' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'cancelled' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'interrupt' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('error' as const),
      code: fc.option(fc.constant('agent_lost'), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
);

export const logPlan: fc.Arbitrary<LogPlan> = fc.record({
  streams: fc.array(stream, { maxLength: 6 }),
  blocks: fc.array(block, { maxLength: 8 }),
  picks: fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
  terminal,
});

/** One planned unit: events that must stay in order; `atomic` ones are never split. */
interface Unit {
  events: AGUIEvent[];
  /** Per event: attribution without offset (filled in once offsets are known). */
  attrs: (Omit<Attribution, 'offset' | 'idSince'> & { idLess?: true })[][];
  atomic: boolean;
}

const T = 't1';
const R = 'r1';

export function buildLog(plan: LogPlan): RunLog {
  let n = 0;
  const fresh = (prefix: string) => `${prefix}${++n}`;
  const streamedMessageIds: string[] = [];
  const toolCallIds: string[] = [];
  let lastText: string | undefined;
  const units: Unit[] = [];

  for (const s of plan.streams) {
    const events: AGUIEvent[] = [];
    const attrs: Unit['attrs'] = [];
    const push = (event: AGUIEvent, a: Unit['attrs'][number] = []) => {
      events.push(event);
      attrs.push(a);
    };
    if (s.kind === 'text') {
      const id = fresh('m');
      streamedMessageIds.push(id);
      if (s.role === 'assistant') lastText = id;
      push({
        type: 'TEXT_MESSAGE_START',
        messageId: id,
        role: s.role,
        ...(s.name === undefined ? {} : { name: s.name }),
      } as AGUIEvent);
      for (const d of s.deltas) {
        push({ type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta: d } as AGUIEvent, [
          { target: 'message', id, delta: d },
        ]);
      }
      if (s.end) push({ type: 'TEXT_MESSAGE_END', messageId: id } as AGUIEvent);
    } else if (s.kind === 'reasoning') {
      const id = fresh('rs');
      streamedMessageIds.push(id);
      if (s.phase) push({ type: 'REASONING_START', messageId: id } as AGUIEvent);
      push({ type: 'REASONING_MESSAGE_START', messageId: id, role: 'reasoning' } as AGUIEvent);
      for (const d of s.deltas) {
        push({ type: 'REASONING_MESSAGE_CONTENT', messageId: id, delta: d } as AGUIEvent, [
          { target: 'message', id, delta: d },
        ]);
      }
      if (s.end) {
        push({ type: 'REASONING_MESSAGE_END', messageId: id } as AGUIEvent);
        if (s.phase) push({ type: 'REASONING_END', messageId: id } as AGUIEvent);
      }
    } else {
      const id = fresh('tc');
      toolCallIds.push(id);
      const parentMessageId =
        s.parent === 'previous' ? lastText : s.parent === 'fresh' ? fresh('p') : undefined;
      push({
        type: 'TOOL_CALL_START',
        toolCallId: id,
        toolCallName: s.name,
        ...(parentMessageId === undefined ? {} : { parentMessageId }),
      } as AGUIEvent);
      for (const d of s.deltas) {
        push({ type: 'TOOL_CALL_ARGS', toolCallId: id, delta: d } as AGUIEvent, [
          { target: 'toolCall', id, delta: d },
        ]);
      }
      if (s.end) {
        push({ type: 'TOOL_CALL_END', toolCallId: id } as AGUIEvent);
        if (s.result !== undefined) {
          push({
            type: 'TOOL_CALL_RESULT',
            messageId: fresh('res'),
            toolCallId: id,
            content: s.result,
          } as AGUIEvent);
        }
      }
    }
    units.push({ events, attrs, atomic: false });
  }

  const stateKeys = new Set<string>();
  for (const b of plan.blocks) {
    const events: AGUIEvent[] = [];
    const attrs: Unit['attrs'] = [];
    const push = (event: AGUIEvent, a: Unit['attrs'][number] = []) => {
      events.push(event);
      attrs.push(a);
    };
    switch (b.kind) {
      case 'textChunks':
      case 'reasoningChunks':
      case 'toolChunks': {
        const isTool = b.kind === 'toolChunks';
        const id = fresh(isTool ? 'tcc' : b.kind === 'textChunks' ? 'mc' : 'rc');
        (isTool ? toolCallIds : streamedMessageIds).push(id);
        b.steps.forEach((step, i) => {
          const withId = i === 0 || step.withId;
          const type =
            b.kind === 'textChunks'
              ? 'TEXT_MESSAGE_CHUNK'
              : b.kind === 'reasoningChunks'
                ? 'REASONING_MESSAGE_CHUNK'
                : 'TOOL_CALL_CHUNK';
          const event: Record<string, unknown> = { type };
          if (withId) event[isTool ? 'toolCallId' : 'messageId'] = id;
          if (i === 0 && b.kind === 'textChunks' && b.role !== undefined) event.role = b.role;
          if (i === 0 && b.kind === 'toolChunks') {
            event.toolCallName = b.name;
            if (b.parent === 'previous' && lastText !== undefined) event.parentMessageId = lastText;
          }
          if (step.delta !== undefined) event.delta = step.delta;
          push(
            event as unknown as AGUIEvent,
            step.delta === undefined
              ? []
              : [
                  {
                    target: isTool ? 'toolCall' : 'message',
                    id,
                    delta: step.delta,
                    ...(withId ? {} : { idLess: true as const }),
                  },
                ],
          );
        });
        if (b.kind === 'textChunks' && (b.role ?? 'assistant') === 'assistant') lastText = id;
        break;
      }
      case 'stateSnapshot':
        stateKeys.clear();
        for (const key of Object.keys(b.value)) stateKeys.add(key);
        push({ type: 'STATE_SNAPSHOT', snapshot: b.value } as AGUIEvent);
        break;
      case 'stateDelta': {
        // Mostly valid patches; a remove/replace of a missing key fails (a warning) and the
        // whole patch is then not applied, which the model mirrors.
        const keys = new Set(stateKeys);
        let ok = true;
        const ops = b.ops.map(({ op, key, value }) => {
          const path = `/s${key}`;
          if (op === 'add') keys.add(`s${key}`);
          else if (!keys.has(`s${key}`)) ok = false;
          else if (op === 'remove') keys.delete(`s${key}`);
          return op === 'remove' ? { op, path } : { op, path, value };
        });
        if (ok) {
          stateKeys.clear();
          for (const key of keys) stateKeys.add(key);
        }
        push({ type: 'STATE_DELTA', delta: ops } as AGUIEvent);
        break;
      }
      case 'step':
        push({ type: 'STEP_STARTED', stepName: b.name } as AGUIEvent);
        if (b.finish) push({ type: 'STEP_FINISHED', stepName: b.name } as AGUIEvent);
        break;
      case 'custom':
        push({ type: 'CUSTOM', name: b.name, value: { n: b.value } } as AGUIEvent);
        break;
      case 'raw':
        push({ type: 'RAW', event: { vendor: 'x', seq: n } } as AGUIEvent);
        break;
      case 'activity': {
        const id = fresh('act');
        push({
          type: 'ACTIVITY_SNAPSHOT',
          messageId: id,
          activityType: 'PLAN',
          content: { steps: [] },
        } as AGUIEvent);
        for (const key of b.keys) {
          push({
            type: 'ACTIVITY_DELTA',
            messageId: id,
            activityType: 'PLAN',
            patch: [{ op: 'add', path: '/steps/-', value: key }],
          } as AGUIEvent);
        }
        break;
      }
      case 'messagesSnapshot':
        push({
          type: 'MESSAGES_SNAPSHOT',
          messages: b.contents.map((content, i) =>
            i === 1
              ? {
                  id: fresh('h'),
                  role: 'assistant',
                  content,
                  toolCalls: [
                    {
                      id: fresh('htc'),
                      type: 'function',
                      function: { name: 'f', arguments: '{}' },
                    },
                  ],
                }
              : { id: fresh('h'), role: 'user', content },
          ),
        } as AGUIEvent);
        break;
      case 'junk':
        push(
          [
            { type: 'NOT_AN_AG_UI_EVENT', x: 1 },
            { type: 'TEXT_MESSAGE_CONTENT', messageId: 7 },
            { nothing: 'here' },
          ][b.which] as unknown as AGUIEvent,
        );
        break;
    }
    units.push({ events, attrs, atomic: true });
  }

  // Interleave: each pick chooses a pending unit; a stream advances one event, a block
  // (chunk blocks must stay contiguous, the rest is short anyway) goes out whole.
  const events: AGUIEvent[] = [{ type: 'RUN_STARTED', threadId: T, runId: R } as AGUIEvent];
  const pending: { unit: Unit; next: number }[] = units.map((unit) => ({ unit, next: 0 }));
  const attrs: Unit['attrs'] = [[]];
  let p = 0;
  while (pending.length > 0) {
    const i = plan.picks[p++ % plan.picks.length]! % pending.length;
    const entry = pending[i]!;
    const count = entry.unit.atomic ? entry.unit.events.length : 1;
    for (let j = 0; j < count; j++) {
      events.push(entry.unit.events[entry.next]!);
      attrs.push(entry.unit.attrs[entry.next]!);
      entry.next++;
    }
    if (entry.next >= entry.unit.events.length) pending.splice(i, 1);
  }

  switch (plan.terminal.kind) {
    case 'success':
      events.push({
        type: 'RUN_FINISHED',
        threadId: T,
        runId: R,
        outcome: { type: 'success' },
      } as AGUIEvent);
      break;
    case 'cancelled':
      events.push({
        type: 'RUN_FINISHED',
        threadId: T,
        runId: R,
        outcome: { type: 'cancelled' },
      } as AGUIEvent);
      break;
    case 'interrupt':
      events.push({
        type: 'RUN_FINISHED',
        threadId: T,
        runId: R,
        outcome: { type: 'interrupt', interrupts: [{ id: 'i1', reason: 'approval' }] },
      } as AGUIEvent);
      break;
    case 'error':
      events.push({
        type: 'RUN_ERROR',
        message: 'boom',
        ...(plan.terminal.code === undefined ? {} : { code: plan.terminal.code }),
      } as AGUIEvent);
      break;
    case 'none':
      break;
  }
  if (plan.terminal.kind !== 'none') attrs.push([]);

  const attributions: Attribution[] = [];
  const lastIdAt = new Map<string, number>();
  attrs.forEach((list, i) => {
    const offset = i + 1;
    const event = events[i] as { messageId?: unknown; toolCallId?: unknown };
    const named = typeof event.messageId === 'string' ? event.messageId : event.toolCallId;
    if (typeof named === 'string') lastIdAt.set(named, offset);
    for (const a of list) {
      const { idLess, ...rest } = a;
      attributions.push(
        idLess ? { ...rest, offset, idSince: lastIdAt.get(a.id)! } : { ...rest, offset },
      );
    }
  });
  // Id-bearing chunks without a delta still set lastIdAt above (they name the block).
  return {
    envelopes: deepFreeze(toEnvelopes(events)),
    attributions,
    streamedMessageIds,
    toolCallIds,
  };
}

export const runLog: fc.Arbitrary<RunLog> = logPlan.map(buildLog);

/**
 * Freezes a value deeply, so a test proves the fold never writes its input. `Object.freeze`
 * does not stop `Map.prototype.set`, so a Map (the fold's id indexes) gets throwing writers.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    if (value instanceof Map) {
      for (const writer of ['set', 'delete', 'clear']) {
        Object.defineProperty(value, writer, {
          value: () => {
            throw new TypeError(`${writer} on a frozen Map`);
          },
        });
      }
      for (const entry of value.values()) deepFreeze(entry);
    }
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
