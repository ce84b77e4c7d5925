// @vitest-environment node
// The parts render on a server (Next.js, Remix) without touching window, document or
// navigator during render.
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ResumableChatView } from '../src/index.js';
import { assistant, connection, controller, user } from './fixtures.js';

describe('server rendering', () => {
  it('renders the whole chat to HTML in Node with no DOM', () => {
    expect(typeof document).toBe('undefined');
    const { controller: c } = controller({
      messages: [user('u1', 'Hi'), assistant('a1', 'Hello **there**\n\n```js\nx()\n```')],
      connection: connection({ phase: 'reconnecting', attempt: 1, nextRetryAt: null }),
      status: 'running',
    });
    const html = renderToString(<ResumableChatView controller={c} />);
    expect(html).toContain('data-message-id="a1" data-role="assistant" data-status="complete"');
    expect(html).toContain('Hello <strong>there</strong>');
    // The status line waits out its grace period on the client: never in server HTML.
    expect(html).toContain('role="status" class="rc-connection__status"></div>');
    expect(renderToString(<ResumableChatView controller={c} graceMs={0} />)).toContain(
      'role="status" class="rc-connection__status">Reconnecting (attempt 1)…<button',
    );
    expect(html).toContain('aria-label="Message"');
  });
});
