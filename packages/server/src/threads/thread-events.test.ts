import type { Message } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { newMessages } from './thread-events.js';

const user = (id: string): Message => ({ id, role: 'user', content: id });
const assistant = (id: string): Message => ({ id, role: 'assistant', content: id });

describe('newMessages (what run_started announces)', () => {
  it('a prompt-only request: all its user messages', () => {
    expect(newMessages([user('u1')])).toEqual([user('u1')]);
    expect(newMessages([])).toEqual([]);
  });

  it('a request carrying the conversation: only the turn after its last assistant message', () => {
    const tool: Message = { id: 't1', role: 'tool', content: '{}', toolCallId: 'c1' };
    expect(newMessages([user('u1'), assistant('a1'), user('u2'), tool, user('u3')])).toEqual([
      user('u2'),
      user('u3'),
    ]);
    expect(newMessages([user('u1'), assistant('a1')])).toEqual([]);
  });
});
