// Import rules for src/ (pnpm lint; the rules themselves: scripts/dependency-rules.cjs).
// Layers bottom first: a layer imports only the ones above it in this list. The core is
// framework-free and reads bottom to top (packages/hooks/README.md, "Architecture"); the
// React hooks and the package's entries sit on it.
const { dependencyRules } = require('../../scripts/dependency-rules.cjs');

module.exports = dependencyRules({
  layers: [
    {
      name: 'base',
      paths: ['core/base/'],
      why: 'The environment, timeouts, typed errors, the defaults table: nothing of the kit.',
    },
    { name: 'retry', paths: ['core/retry/'], why: 'The one policy and the one executor.' },
    { name: 'net', paths: ['core/net/'], why: 'HTTP, the event stream, the endpoints, uploads.' },
    { name: 'records', paths: ['core/records/'], why: 'Storage, the run record and its writer.' },
    { name: 'run', paths: ['core/run/'], why: 'RunSession: one run, its machine and its loop.' },
    {
      name: 'tabs',
      paths: ['core/tabs/'],
      why: 'Leadership, tab messages, the shared point: what other tabs say, checked.',
    },
    {
      name: 'conversation',
      paths: ['core/conversation/'],
      why: 'The thread stream, announced runs, history: what a conversation shows.',
    },
    { name: 'chat', paths: ['core/chat/'], why: 'ChatSession: compose, optimistic, the outbox.' },
    { name: 'uploads', paths: ['core/uploads/'] },
    { name: 'threads', paths: ['core/threads/'] },
    { name: 'branches', paths: ['core/branches/'] },
    { name: 'interrupts', paths: ['core/interrupts/'] },
    {
      name: 'turns',
      paths: ['core/turns/'],
      why: 'The turn view: messages and interrupts as turns with parts, derived.',
    },
    {
      name: 'client',
      paths: ['core/client/'],
      why: 'ResumableClient, the lazy engine handle, first paint: the top of the core.',
    },
    { name: 'core-entry', paths: ['core/index.ts', 'observe.ts'] },
    { name: 'lazy-entries', paths: ['interrupts.ts', 'upload/'] },
    { name: 'react', paths: ['react/'] },
    { name: 'entries', paths: ['index.ts', 'threads/', 'attachments/', 'turns/', 'ai-sdk/'] },
  ],
  lazy: [
    { path: 'core/client/engine.ts', why: 'The engine: the hooks load it on first use.' },
    { path: 'core/run/cancel-sender.ts', why: 'Loaded on the first stop.' },
    { path: 'core/conversation/link.ts', why: 'The thread stream and tabs: after first paint.' },
    { path: 'core/chat/stored-outbox.ts', why: 'Only for a stored record with an outbox.' },
    { path: 'core/branches/', why: 'Regenerate, edit, switch: on first use.' },
    {
      path: '^src/(interrupts\\.ts$|core/interrupts/(?!tool-declarations\\.ts$))',
      why: 'Human in the loop: loaded when the chat meets an interrupt.',
    },
  ],
  hosts: [
    { feature: 'core/branches/', folder: 'core/chat/', host: 'core/chat/host.ts' },
    { feature: 'core/interrupts/', folder: 'core/chat/', host: 'core/chat/host.ts' },
    { feature: 'core/uploads/', folder: 'core/chat/', host: 'core/chat/host.ts' },
  ],
  higherPackages: ['server', 'ui'],
});
