// @vitest-environment jsdom
/**
 * The TanStack Devtools plugin: its shape is the shell's own type (`TanStackDevtoolsReactPlugin`
 * from `@tanstack/react-devtools`, checked by the type check), and what the shell calls —
 * `render(el, { theme })` — draws the panel in that theme.
 */
import type { TanStackDevtoolsReactPlugin } from '@tanstack/react-devtools';
import { act, render, screen } from '@testing-library/react';
import type { ReactElement } from 'react';
import { describe, expect, it } from 'vitest';
import { resumableDevtoolsPlugin } from '../src/production.js';

describe('resumableDevtoolsPlugin', () => {
  it("is a TanStack Devtools plugin whose render draws the panel in the shell's theme", async () => {
    const plugin: TanStackDevtoolsReactPlugin = resumableDevtoolsPlugin({ defaultOpen: true });
    expect({ id: plugin.id, name: plugin.name, defaultOpen: plugin.defaultOpen }).toEqual({
      id: 'resumable',
      name: 'Resumable',
      defaultOpen: true,
    });
    const el = document.createElement('div');
    const draw = plugin.render as (el: HTMLElement, props: { theme: 'dark' }) => ReactElement;
    await act(async () => {
      render(draw(el, { theme: 'dark' }));
    });
    const panel = await screen.findByRole('region', { name: 'Resumable devtools' });
    expect(panel.className).toBe('rdt rdt-dark');
    expect(panel.textContent).toContain(
      'No conversation yet: the panel shows what a Resumable client does once one runs.',
    );
  });
});
