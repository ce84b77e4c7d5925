import { describe, expect, it } from 'vitest';
import type { AGUIEvent, ErrorCode } from './index.js';
import {
  applyEnvelopes,
  checkEvent,
  createRunState,
  decodeEnvelope,
  ERROR_ACTIONS,
  ERROR_CODES,
  EventType,
  encodeFrame,
  encodeFrameJson,
  errorAction,
  errorFromBody,
  HTTP_STATUS_BY_CODE,
  isErrorCode,
  isKnownEventType,
  isResumableError,
  isTerminalEvent,
  PING_FRAME,
  parseResumePoint,
  ResumableError,
  resumePointOf,
  SSE_HEADERS,
} from './index.js';

const content = { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Hel' } as AGUIEvent;

describe('checkEvent', () => {
  it('returns a usable event as is', () => {
    expect(checkEvent(content)).toBe(content);
    const start = { type: 'RUN_STARTED', threadId: 't', runId: 'r', extra: 1 };
    expect(checkEvent(start)).toBe(start);
  });

  it.each([
    [null, 'malformed_event', 'JSON object'],
    [[1], 'malformed_event', 'JSON object'],
    ['TEXT', 'malformed_event', 'JSON object'],
    [{}, 'malformed_event', 'string "type"'],
    [{ type: 7 }, 'malformed_event', 'string "type"'],
    [{ type: 'NOPE' }, 'unknown_event', 'NOPE'],
    [{ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm' }, 'malformed_event', '"delta"'],
    [{ type: 'TEXT_MESSAGE_CONTENT', messageId: 1, delta: 'x' }, 'malformed_event', '"messageId"'],
    [{ type: 'STATE_DELTA', delta: {} }, 'malformed_event', '"delta"'],
    [{ type: 'STATE_SNAPSHOT' }, 'malformed_event', '"snapshot"'],
    [
      { type: 'TOOL_CALL_RESULT', messageId: 'a', toolCallId: 'b', content: 3 },
      'malformed_event',
      '"content"',
    ],
    [
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'a', activityType: 'P', content: [] },
      'malformed_event',
      '"content"',
    ],
  ])('%j → %s', (value, code, mentions) => {
    const result = checkEvent(value);
    expect(result).toBeInstanceOf(ResumableError);
    expect((result as ResumableError).code).toBe(code);
    expect((result as ResumableError).message).toContain(mentions);
  });

  // checkEvent takes the stream's deltas (CONTENT and ARGS, nearly every event) through a
  // path of their own (events.ts isWellFormedDelta): it accepts exactly what the table does.
  it.each([
    ['TEXT_MESSAGE_CONTENT', 'messageId'],
    ['REASONING_MESSAGE_CONTENT', 'messageId'],
    ['TOOL_CALL_ARGS', 'toolCallId'],
  ])('%s: accepted with a string %s and delta, else named', (type, idField) => {
    const values: [string, unknown][] = [
      ['a string', 'x'],
      ['an empty string', ''],
      ['a number', 1],
      ['null', null],
      ['an object', {}],
      ['nothing', undefined],
    ];
    for (const [, id] of values) {
      for (const [, delta] of values) {
        const event = { type, [idField]: id, delta };
        const result = checkEvent(event);
        if (typeof id === 'string' && typeof delta === 'string') {
          expect(result).toBe(event);
        } else {
          const field = typeof id === 'string' ? 'delta' : idField;
          expect(result).toBeInstanceOf(ResumableError);
          expect((result as ResumableError).code).toBe('malformed_event');
          expect((result as ResumableError).message).toContain(`${type} needs "${field}"`);
        }
      }
    }
    // Another type's id field does not stand in for this one's.
    const other = idField === 'messageId' ? 'toolCallId' : 'messageId';
    expect((checkEvent({ type, [other]: 'x', delta: 'y' }) as ResumableError).code).toBe(
      'malformed_event',
    );
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'an Object.prototype key %j as a type is an unknown_event',
    (type) => {
      expect((checkEvent({ type }) as ResumableError).code).toBe('unknown_event');
      expect(isKnownEventType(type)).toBe(false);
    },
  );

  it('accepts the chunk events with no field at all (every field is optional)', () => {
    for (const type of ['TEXT_MESSAGE_CHUNK', 'TOOL_CALL_CHUNK', 'REASONING_MESSAGE_CHUNK']) {
      expect(checkEvent({ type })).toEqual({ type });
    }
  });

  it('knows every AG-UI 1.0 event type, and which are terminal', () => {
    for (const type of Object.values(EventType)) expect(isKnownEventType(type)).toBe(true);
    expect(isKnownEventType('NOPE')).toBe(false);
    expect(isTerminalEvent({ type: 'RUN_FINISHED' })).toBe(true);
    expect(isTerminalEvent({ type: 'RUN_ERROR' })).toBe(true);
    expect(isTerminalEvent({ type: 'RUN_STARTED' })).toBe(false);
  });
});

describe('decodeEnvelope', () => {
  it('parses an SSE id and JSON data into an envelope', () => {
    expect(decodeEnvelope('42', JSON.stringify(content))).toEqual({ offset: 42, event: content });
    expect(decodeEnvelope(' 7 ', JSON.stringify(content))).toEqual({ offset: 7, event: content });
    expect(decodeEnvelope(3, content)).toEqual({ offset: 3, event: content });
  });

  it.each([undefined, '', '0', '-1', '1.5', 'abc', '1e3', '0x10', '012', 0, -2, 1.5, Number.NaN])(
    'id %j is a malformed_event error',
    (id) => {
      const result = decodeEnvelope(id as string | number | undefined, '{}');
      expect(result).toBeInstanceOf(ResumableError);
      expect((result as ResumableError).code).toBe('malformed_event');
    },
  );

  it('keeps the offset of an event whose data is not usable, so the fold moves past it', () => {
    const bad = decodeEnvelope('2', '{not json');
    expect(bad).toEqual({ offset: 2, event: { type: undefined, unparsed: '{not json' } });
    const start = decodeEnvelope('1', '{"type":"RUN_STARTED","threadId":"t","runId":"r"}');
    const { state } = applyEnvelopes(createRunState(), [start, bad] as never);
    expect(state.offset).toBe(2);
    expect(state.warnings.map((w) => w.code)).toEqual(['malformed_event']);
  });
});

describe('SSE framing', () => {
  it('encodes one frame per event: id is the offset, data the JSON on one line', () => {
    expect(
      encodeFrame({
        offset: 1,
        event: { type: 'RUN_STARTED', threadId: 't', runId: 'r' } as AGUIEvent,
      }),
    ).toBe('id: 1\ndata: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n');
    const multiline = {
      type: 'TEXT_MESSAGE_CONTENT',
      messageId: 'm',
      delta: 'a\nb\r\n',
    } as AGUIEvent;
    const frame = encodeFrame({ offset: 12, event: multiline });
    expect(frame.split('\n')).toEqual([
      'id: 12',
      'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\\nb\\r\\n"}',
      '',
      '',
    ]);
    // …and the frame reads back as the same envelope.
    const [idLine, dataLine] = frame.split('\n') as [string, string];
    expect(decodeEnvelope(idLine.slice(4), dataLine.slice(6))).toEqual({
      offset: 12,
      event: multiline,
    });
  });

  it('encodes stored JSON text as is, and pings as a comment', () => {
    expect(encodeFrameJson(5, '{"type":"RAW","event":1}')).toBe(
      'id: 5\ndata: {"type":"RAW","event":1}\n\n',
    );
    expect(PING_FRAME).toBe(': ping\n\n');
    expect(SSE_HEADERS['Content-Type']).toBe('text/event-stream; charset=utf-8');
  });
});

describe('resume points', () => {
  it('parses non-negative decimal integers', () => {
    expect(parseResumePoint('0')).toBe(0);
    expect(parseResumePoint('17')).toBe(17);
    expect(parseResumePoint(' 9 ')).toBe(9);
    expect(parseResumePoint('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([
    '',
    ' ',
    '-1',
    '1.5',
    'abc',
    '1e3',
    '0x1',
    '01',
    '+1',
    '9007199254740993',
    '99999999999999999',
  ])('%j is a bad_request', (text) => {
    let error: unknown;
    try {
      parseResumePoint(text);
    } catch (e) {
      error = e;
    }
    expect(isResumableError(error)).toBe(true);
    expect((error as ResumableError).code).toBe('bad_request');
    expect((error as ResumableError).status).toBe(400);
  });

  it('resumePointOf: after, else Last-Event-ID, else 0', () => {
    expect(resumePointOf('5', '7')).toBe(5);
    expect(resumePointOf(null, '7')).toBe(7);
    expect(resumePointOf(undefined, '')).toBe(0);
    expect(resumePointOf(null, null)).toBe(0);
    expect(() => resumePointOf('x', '7')).toThrow(expect.objectContaining({ code: 'bad_request' }));
    expect(() => resumePointOf('', '7')).toThrow(/after/);
    expect(() => resumePointOf(null, 'nope')).toThrow(/Last-Event-ID/);
  });
});

describe('errors', () => {
  it('ResumableError carries code, status, retryAfter and a body', () => {
    const error = new ResumableError('too_many_requests', 'slow down', { retryAfter: 3 });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ResumableError');
    expect(error.status).toBe(429);
    expect(error.retryAfter).toBe(3);
    expect(error.toBody()).toEqual({ error: { code: 'too_many_requests', message: 'slow down' } });
    expect(new ResumableError('network', 'x').status).toBeUndefined();
    const cause = new Error('root');
    expect(new ResumableError('internal', 'x', { cause }).cause).toBe(cause);
  });

  it("errorFromBody trusts only the server's own error shape; anything else is unexpected_response", () => {
    const expired = errorFromBody(410, { error: { code: 'offset_expired', message: 'gone' } });
    expect(expired).toMatchObject({ code: 'offset_expired', message: 'gone', status: 410 });
    expect(
      errorFromBody(429, { error: { code: 'too_many_requests', message: 'x' } }, 2).retryAfter,
    ).toBe(2);
    const conflict = errorFromBody(409, {
      error: { code: 'run_in_progress', message: 'busy', runId: 'r-1' },
    });
    expect(conflict).toMatchObject({ code: 'run_in_progress', status: 409, runId: 'r-1' });
    expect(conflict.toBody()).toEqual({
      error: { code: 'run_in_progress', message: 'busy', runId: 'r-1' },
    });
    // A proxy's HTML 404 is not the server saying "no such run".
    expect(errorFromBody(404, '<html>Not Found</html>')).toMatchObject({
      code: 'unexpected_response',
      status: 404,
    });
    for (const [status, body] of [
      [409, null],
      [503, { error: { code: 'not-a-code', message: 'x' } }],
      [404, { error: { code: 'run_not_found' } }],
      [502, undefined],
      [418, {}],
      [404, { error: 'run_not_found' }],
      [404, [{ error: { code: 'run_not_found', message: 'x' } }]],
    ] as const) {
      expect(errorFromBody(status, body).code).toBe('unexpected_response');
    }
    expect(errorFromBody(500, {}).retryAfter).toBeUndefined();
  });

  it('a known code counts only at its own status, and only if the server sends it over HTTP', () => {
    const body = (code: string) => ({ error: { code, message: 'x' } });
    // Every code the server answers with, at the status it uses, is its word.
    const sent = Object.entries(HTTP_STATUS_BY_CODE) as [ErrorCode, number][];
    expect(sent.map(([code, status]) => [code, errorFromBody(status, body(code)).code])).toEqual(
      sent.map(([code]) => [code, code]),
    );
    expect(Object.fromEntries(sent)).toEqual({
      bad_request: 400,
      unauthorized: 401,
      forbidden: 403,
      run_not_found: 404,
      thread_not_found: 404,
      offset_ahead: 409,
      offset_expired: 410,
      payload_too_large: 413,
      unsupported_media_type: 415,
      run_in_progress: 409,
      method_not_allowed: 405,
      interrupt_answered: 409,
      message_not_found: 404,
      file_not_found: 404,
      too_many_requests: 429,
      internal: 500,
      store_unavailable: 503,
      not_found: 404,
    });
    // A 502 page whose JSON says run_not_found is a proxy's, not the server's.
    for (const [status, code] of [
      [502, 'run_not_found'],
      [200, 'run_not_found'],
      [500, 'thread_not_found'],
      [404, 'offset_expired'],
      [400, 'corrupt_record'],
      [500, 'no_progress'],
      [500, 'agent_failed'],
      [404, 'aborted'],
    ] as const) {
      expect(errorFromBody(status, body(code))).toMatchObject({
        code: 'unexpected_response',
        status,
      });
    }
  });

  it('one decision per code: retry, snapshot, stop or forget', () => {
    expect(ERROR_CODES.filter((code) => ERROR_ACTIONS[code] === 'forget')).toEqual([
      'run_not_found',
      'thread_not_found',
      'corrupt_record',
    ]);
    expect(ERROR_CODES.filter((code) => ERROR_ACTIONS[code] === 'snapshot')).toEqual([
      'offset_expired',
      'offset_ahead',
    ]);
    for (const code of ['unexpected_response', 'timeout', 'bad_snapshot', 'network'] as const) {
      expect(errorAction({ code })).toBe('retry');
    }
    expect(Object.keys(ERROR_ACTIONS).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('every code with an HTTP status is a known code', () => {
    for (const code of Object.keys(HTTP_STATUS_BY_CODE)) expect(isErrorCode(code)).toBe(true);
    expect(isErrorCode('nope')).toBe(false);
    expect(isErrorCode(1)).toBe(false);
  });
});
