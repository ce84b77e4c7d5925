import { describe, expect, it } from 'vitest';
import { describeUrl, redactor } from './upstream-secrets.js';

describe('upstream secrets', () => {
  it('describes a URL by origin and path only', () => {
    expect(describeUrl('https://user:pw@api.example.com/v1/agent/?key=s3cret#x')).toBe(
      'https://api.example.com/v1/agent',
    );
    expect(describeUrl('not a url')).toBe('an unparsable URL');
  });

  it('redacts query values, user info and header values, whole or without their scheme', () => {
    const redact = redactor('https://u:pass-word@h.example/a?key=s3cret-key&v=1', {
      Authorization: 'Bearer sk-live-0123',
      'X-Api-Key': 'abcd-efgh',
      'Content-Type': 'application/json',
    });
    expect(
      redact(
        'bad key sk-live-0123 (Bearer sk-live-0123), s3cret-key, abcd-efgh, pass-word, application/json v=1',
      ),
    ).toBe(
      'bad key [redacted] ([redacted]), [redacted], [redacted], [redacted], application/json v=1',
    );
  });
});
