/** Shape checks shared by the fold, the snapshot entry point and the client's record reads. */

/** A plain object (not null, not an array): what a JSON object parses to. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Why a message from MESSAGES_SNAPSHOT cannot be merged (null when it can). Only what the
 * fold itself relies on is checked: an id, a role, and tool calls it can extend later.
 */
export function messageProblem(message: unknown): string | null {
  if (!isPlainObject(message)) return 'a message that is not an object';
  const m = message as { id?: unknown; role?: unknown; toolCalls?: unknown };
  if (typeof m.id !== 'string' || typeof m.role !== 'string') {
    return 'a message without id or role';
  }
  if (m.toolCalls === undefined) return null;
  if (!Array.isArray(m.toolCalls)) return `message "${m.id}" whose toolCalls is not an array`;
  for (const call of m.toolCalls as unknown[]) {
    const c = call as { id?: unknown; function?: { name?: unknown; arguments?: unknown } } | null;
    if (
      typeof c?.id !== 'string' ||
      typeof c.function !== 'object' ||
      c.function === null ||
      typeof c.function.name !== 'string' ||
      typeof c.function.arguments !== 'string'
    ) {
      return `message "${m.id}" with a malformed tool call`;
    }
  }
  return null;
}
