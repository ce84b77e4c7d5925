import { describe, expect, it } from 'vitest';
import { copyMessage, copyToolCall, withArguments } from './copy-message.js';
import type { RunMessage, RunToolCall } from './state.js';

/** Own keys in order with their values, and the prototype: what a spread makes. */
const layout = (value: object) => [
  Reflect.ownKeys(value).map((key) => [key, (value as Record<PropertyKey, unknown>)[key]]),
  Object.getPrototypeOf(value),
];

describe('copy-message: the literal copies make what a spread makes', () => {
  const inherited = Object.assign(Object.create({ streaming: true }), {
    id: 'm',
    role: 'assistant',
    content: 'x',
  });
  const hidden = { id: 'm', role: 'assistant', content: 'x' };
  Object.defineProperty(hidden, 'streaming', { value: true, enumerable: false });
  const messages: [string, object][] = [
    ['a streaming message', { id: 'm', role: 'assistant', content: 'x', streaming: true }],
    ['its tool calls streaming', { id: 'm', role: 'assistant', content: '', toolCalls: [] }],
    ['the same keys in another order', { role: 'assistant', id: 'm', content: 'x', streaming: 1 }],
    ['a key more', { id: 'm', role: 'assistant', content: 'x', streaming: true, name: 'n' }],
    ['a key fewer', { id: 'm', role: 'assistant', content: 'x' }],
    ['a streaming key inherited', inherited],
    ['a streaming key not enumerable', hidden],
    ['an own __proto__ key', JSON.parse('{"id":"m","role":"user","content":"x","__proto__":1}')],
    ['an integer key', { 0: 'a', id: 'm', role: 'assistant', content: 'x' }],
  ];

  it.each(messages)('copyMessage: %s', (_, message) => {
    const copy = copyMessage(message as RunMessage);
    expect(copy).not.toBe(message);
    expect(layout(copy)).toStrictEqual(layout({ ...message }));
  });

  const fn = { name: 'search', arguments: '{"q"' };
  it.each([
    ['a streaming call', { id: 'c', type: 'function', function: fn, streaming: true }],
    ['a finished call', { id: 'c', type: 'function', function: fn }],
    ['another order', { type: 'function', id: 'c', function: fn, streaming: true }],
  ])('copyToolCall: %s', (_, call) => {
    const copy = copyToolCall(call as RunToolCall);
    expect(copy).not.toBe(call);
    expect(copy.function).toBe(fn);
    expect(layout(copy)).toStrictEqual(layout({ ...call }));
  });

  it.each([
    ['name, arguments', { name: 'search', arguments: '{' }],
    ['arguments, name', { arguments: '{', name: 'search' }],
    ['a key more', { name: 'search', arguments: '{', extra: 1 }],
    ['no arguments', { name: 'search' }],
  ])('withArguments: %s', (_, value) => {
    const copy = withArguments(value as RunToolCall['function'], '{"q":1}');
    expect(copy).not.toBe(value);
    expect(layout(copy)).toStrictEqual(layout({ ...value, arguments: '{"q":1}' }));
  });

  it('keeps no symbol-keyed property on the shapes it copies literally (README)', () => {
    const tag = Symbol('tag');
    const message = { id: 'm', role: 'assistant', content: 'x', streaming: true, [tag]: 1 };
    expect(Reflect.ownKeys(copyMessage(message as RunMessage))).toStrictEqual([
      'id',
      'role',
      'content',
      'streaming',
    ]);
  });
});
