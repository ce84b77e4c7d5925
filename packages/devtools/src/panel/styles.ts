/**
 * The panel's styles, in its own chunk and scoped under `.rdt` so an app's CSS neither
 * needs importing nor leaks in much. Light and dark follow `prefers-color-scheme`; every
 * tone keeps a 4.5:1 contrast on its background (axe checks the demo, which embeds it).
 */
const DARK = `
  --rdt-bg: #1b1d22; --rdt-fg: #e6e8eb; --rdt-dim: #a7adb6; --rdt-line: #3a3f47;
  --rdt-head: #24272d; --rdt-warn: #ffb86b; --rdt-ok: #7ee29a; --rdt-request: #9cbcff;
  --rdt-catch-up: #d5b0ff; --rdt-live: #72dede; --rdt-focus: #9cbcff;
`;

export const PANEL_CSS = `
.rdt {
  --rdt-bg: #ffffff; --rdt-fg: #1c1e21; --rdt-dim: #5a6068; --rdt-line: #d5d9de;
  --rdt-head: #f3f4f6; --rdt-warn: #8a4600; --rdt-ok: #1d6b2f; --rdt-request: #1f4fa8;
  --rdt-catch-up: #6b2fa0; --rdt-live: #0b6464; --rdt-focus: #1f4fa8;
  color: var(--rdt-fg); background: var(--rdt-bg);
  font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  display: flex; flex-direction: column; min-height: 0; box-sizing: border-box;
}
@media (prefers-color-scheme: dark) {
  .rdt:not(.rdt-light) {${DARK}}
}
.rdt.rdt-dark {${DARK}}
.rdt *, .rdt *::before, .rdt *::after { box-sizing: inherit; }
.rdt :focus-visible { outline: 2px solid var(--rdt-focus); outline-offset: 1px; }
.rdt-head {
  display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; padding: 6px 8px;
  background: var(--rdt-head); border-bottom: 1px solid var(--rdt-line);
}
.rdt-title { font-size: 12px; margin: 0; font-weight: 700; }
.rdt-pick { display: flex; align-items: center; gap: 4px; }
.rdt select, .rdt button {
  font: inherit; color: var(--rdt-fg); background: var(--rdt-bg);
  border: 1px solid var(--rdt-line); border-radius: 4px; padding: 2px 6px;
}
.rdt button { cursor: pointer; }
.rdt-actions { display: flex; gap: 4px; margin-left: auto; }
.rdt-body { overflow: auto; padding: 6px 8px; min-height: 0; flex: 1; }
.rdt-float > .rdt { flex: 1; }
.rdt-empty { padding: 8px; margin: 0; color: var(--rdt-dim); }
.rdt-facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 0 0 6px; }
.rdt-facts dt { color: var(--rdt-dim); }
.rdt-facts dd { margin: 0; overflow-wrap: anywhere; }
.rdt-dim { color: var(--rdt-dim); }
.rdt-warn { color: var(--rdt-warn); }
.rdt-section { border-top: 1px solid var(--rdt-line); padding: 4px 0; }
.rdt-section > summary { cursor: pointer; font-weight: 700; }
.rdt-sub { font-size: 12px; margin: 6px 0 2px; }
.rdt-timeline, .rdt-list { list-style: none; margin: 4px 0 0; padding: 0; }
.rdt-timeline { max-height: 220px; overflow: auto; }
.rdt-timeline li { padding: 1px 0; overflow-wrap: anywhere; }
.rdt-timeline time { color: var(--rdt-dim); }
.rdt-tone-warn { color: var(--rdt-warn); }
.rdt-tone-ok { color: var(--rdt-ok); }
.rdt-tone-request { color: var(--rdt-request); }
.rdt-tone-catch-up { color: var(--rdt-catch-up); }
.rdt-tone-live { color: var(--rdt-live); }
.rdt-scroll { max-height: 240px; overflow: auto; margin-top: 4px; }
.rdt-table { border-collapse: collapse; width: 100%; }
.rdt-table th, .rdt-table td {
  text-align: left; padding: 1px 6px 1px 0; white-space: nowrap; vertical-align: top;
}
.rdt-table th { position: sticky; top: 0; background: var(--rdt-bg); color: var(--rdt-dim); }
.rdt-table td:last-child { white-space: normal; overflow-wrap: anywhere; }
.rdt code { font: inherit; }
`;
