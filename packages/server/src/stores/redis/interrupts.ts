import type { InterruptAnswer, InterruptLedger } from '../types.js';
import type { RedisClient } from './connection.js';
import type { RedisKeys } from './keys.js';

/**
 * KEYS: the thread's interrupt hash. ARGV: runId, then (interruptId, value) pairs.
 * → '' when recorded; else the runId that answered first (nothing written).
 * A value is `runId|status|answeredAt|payloadJson` (ids and statuses never contain `|`).
 */
const CLAIM = `#!lua
for i = 2, #ARGV, 2 do
  local v = redis.call('HGET', KEYS[1], ARGV[i])
  if v then
    local owner = string.match(v, '^[^|]*')
    if owner ~= ARGV[1] then return owner end
  end
end
for i = 2, #ARGV, 2 do redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) end
return ''
`;

/** KEYS: the thread's interrupt hash. ARGV: runId, interruptIds… → answers removed. */
const RELEASE = `#!lua
local n = 0
for i = 2, #ARGV do
  local v = redis.call('HGET', KEYS[1], ARGV[i])
  if v and string.match(v, '^[^|]*') == ARGV[1] then
    redis.call('HDEL', KEYS[1], ARGV[i])
    n = n + 1
  end
end
return n
`;

type Call = <T>(what: string, op: (client: RedisClient) => Promise<T>) => Promise<T>;

/**
 * Interrupt answers in a hash per thread (`thread:<id>:interrupts`, interruptId → answer).
 * A claim is one Lua script: atomic across every instance sharing the Redis.
 */
export class RedisInterruptLedger implements InterruptLedger {
  constructor(
    private readonly keys: RedisKeys,
    /** The store's call wrapper: waits for the connection, errors become `store_unavailable`. */
    private readonly call: Call,
  ) {}

  async claim(
    threadId: string,
    runId: string,
    answers: readonly InterruptAnswer[],
  ): Promise<string | null> {
    const args = answers.flatMap((a) => [a.interruptId, encode(runId, a)]);
    const key = this.keys.interrupts(threadId);
    const winner = (await this.call('claimInterrupts', (c) =>
      c.eval(CLAIM, 1, key, runId, ...args),
    )) as string;
    return winner === '' ? null : winner;
  }

  async release(threadId: string, runId: string, interruptIds: readonly string[]): Promise<void> {
    if (interruptIds.length === 0) return;
    const key = this.keys.interrupts(threadId);
    await this.call('releaseInterrupts', (c) => c.eval(RELEASE, 1, key, runId, ...interruptIds));
  }

  async get(threadId: string, interruptIds: readonly string[]): Promise<InterruptAnswer[]> {
    if (interruptIds.length === 0) return [];
    const key = this.keys.interrupts(threadId);
    const values = await this.call('getInterrupts', (c) => c.hmget(key, ...interruptIds));
    return interruptIds.flatMap((interruptId, i) => {
      const value = values[i];
      return value == null ? [] : [decode(interruptId, value)];
    });
  }
}

function encode(runId: string, answer: InterruptAnswer): string {
  const payload = answer.payload === undefined ? '' : JSON.stringify(answer.payload);
  return `${runId}|${answer.status}|${answer.answeredAt}|${payload}`;
}

/** The first three fields never contain `|`; the payload JSON (the rest) may. */
function decode(interruptId: string, value: string): InterruptAnswer {
  const [runId = '', status, answeredAt] = value.split('|', 3);
  const rest = value.slice(`${runId}|${status}|${answeredAt}|`.length);
  const answer: InterruptAnswer = {
    interruptId,
    runId,
    status: status as InterruptAnswer['status'],
    answeredAt: Number(answeredAt),
  };
  return rest === '' ? answer : { ...answer, payload: JSON.parse(rest) };
}
