import type { ChatRecord } from './chat-state.js';
import type { OutboxItem } from './types.js';

/**
 * A stored chat record with each outbox item's `resume` checked (`checkedResume`): a bad
 * one is dropped whole (partial answers are a 400 too). An item with text goes out as that
 * prompt; an answer with no text (nor files) has nothing left to send and is dropped — the
 * interrupts' record queues its answers again while the server has them open. Loaded (an
 * `import()`) only for a record holding a `resume`: not on first paint.
 */
export function withCheckedResume(record: ChatRecord): ChatRecord {
  const outbox = record.outbox.flatMap(({ resume, ...item }) => {
    if (resume === undefined) return [item];
    const answers = checkedResume(resume);
    if (answers) return [{ ...item, resume: answers }];
    return item.text === '' && !item.attachments?.length ? [] : [item];
  });
  return { ...record, outbox };
}

/**
 * A stored continuation's `resume` checked against what `POST /runs` accepts
 * (docs/protocol.md, "Answering"): 1–100 entries, each an object with an `interruptId` of
 * the id alphabet, answered once, `status` resolved or cancelled, a `payload` of at most
 * 16 KiB of JSON nesting no deeper than the body allows. Null when anything is off: sent
 * as it is, the server's 400 would hold the item forever.
 */
export function checkedResume(value: unknown): NonNullable<OutboxItem['resume']> | null {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_ENTRIES) return null;
  const seen = new Set<string>();
  const out: NonNullable<OutboxItem['resume']> = [];
  for (const entry of value) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return null;
    const { interruptId, status, payload } = entry as Record<string, unknown>;
    if (typeof interruptId !== 'string' || !ID.test(interruptId) || seen.has(interruptId)) {
      return null;
    }
    seen.add(interruptId);
    if (status !== 'resolved' && status !== 'cancelled') return null;
    if (payload !== undefined && !fitsPayload(payload)) return null;
    out.push({ interruptId, status, ...(payload === undefined ? {} : { payload }) });
  }
  return out;
}

const MAX_ENTRIES = 100;
const MAX_PAYLOAD_BYTES = 16 * 1024;
/** The server's 64 levels of a request body, less the three above a payload. */
const MAX_PAYLOAD_DEPTH = 61;
const ID = /^[A-Za-z0-9._:-]{1,200}$/;

function fitsPayload(payload: unknown): boolean {
  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch {
    return false; // a cycle or a BigInt: no JSON at all
  }
  if (json === undefined || new TextEncoder().encode(json).length > MAX_PAYLOAD_BYTES) return false;
  // Bounded by the size above: at most 16 KiB of objects to walk.
  const stack: [unknown, number][] = [[payload, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > MAX_PAYLOAD_DEPTH) return false;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return true;
}
