import type { RunAgentInput } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import { parseRunRequest, type RunRequest } from '../input.js';

/** A run request that passed every check made before the thread is looked at. */
export interface AcceptedRunRequest {
  /** The body as parsed (`threadId` / `runId` may be absent). */
  parsed: RunRequest;
  /** The agent's input: ids filled in, `parentMessageId` taken out. */
  input: RunAgentInput;
  /** The message the run hangs under (protocol.md, "Branches"); undefined: the default. */
  parentMessageId: string | null | undefined;
  /** Size of the body (the per-address byte budget). */
  bytes: number;
}

/** What accepting a request needs of the server. */
export interface RunRequestChecks {
  /** Largest body; larger is refused `413 payload_too_large`. */
  maxBodyBytes: number;
  /** The agent's own check of an input (`RunManager.validate`). */
  validate(input: RunAgentInput): void;
}

/**
 * Checks a `POST /runs` body (its JSON text) the one way every run is started, by HTTP or
 * by `startServerRun`: the size limit, JSON, the `RunAgentInput` shape, then the agent's
 * own `validate`. Throws the `ResumableError` to answer; nothing is stored before it passes.
 */
export function acceptRunRequest(text: string, checks: RunRequestChecks): AcceptedRunRequest {
  const bytes = Buffer.byteLength(text);
  if (bytes > checks.maxBodyBytes) {
    throw new ResumableError(
      'payload_too_large',
      `the request body is over the limit of ${checks.maxBodyBytes} bytes`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ResumableError('bad_request', 'the body is not valid JSON');
  }
  const parsed = parseRunRequest(body);
  const { parentMessageId, ...request } = parsed;
  const input = {
    ...request,
    threadId: parsed.threadId ?? crypto.randomUUID(),
    runId: parsed.runId ?? crypto.randomUUID(),
    state: parsed.state ?? {},
  } as RunAgentInput;
  checks.validate(input);
  return { parsed, input, parentMessageId, bytes };
}

/**
 * A request built in the server's own code, as the JSON text a client would send: a value
 * JSON cannot carry (a cycle, a BigInt) is a `400`, and what reaches the store is exactly
 * what a `POST /runs` would have stored (no `undefined`, `Date` as its string).
 */
export function requestText(request: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(request);
  } catch (error) {
    throw new ResumableError('bad_request', `the request is not JSON: ${String(error)}`);
  }
  if (text === undefined) throw new ResumableError('bad_request', 'the request is not JSON');
  return text;
}
