// Import rules for src/ (pnpm lint; the rules themselves: scripts/dependency-rules.cjs).
// Layers bottom first: a layer imports only the ones above it in this list.
const { dependencyRules } = require('../../scripts/dependency-rules.cjs');

module.exports = dependencyRules({
  layers: [
    { name: 'defaults', paths: ['defaults.ts'], why: 'Every timing and limit, imported by all.' },
    { name: 'stores', paths: ['stores/'], why: 'A store keeps what it is given and knows no run.' },
    {
      name: 'base',
      paths: [
        'sleep.ts',
        'key-counts.ts',
        'client-address.ts',
        'rate-window.ts',
        'local-counters.ts',
        'input.ts',
        'auth.ts',
      ],
    },
    { name: 'files', paths: ['files/'] },
    { name: 'agents', paths: ['agents/'] },
    {
      name: 'streams',
      paths: ['streams/'],
      why: 'The fan-out and thread streams deliver what runs/ and threads/ append.',
    },
    { name: 'threads', paths: ['threads/'] },
    { name: 'branches', paths: ['branches/'] },
    { name: 'runs', paths: ['runs/'] },
    { name: 'http', paths: ['http/'] },
    { name: 'app', paths: ['app.ts', 'handler.ts', 'node.ts'] },
    {
      name: 'entries',
      paths: ['index.ts', 'testing.ts', 'main.ts', 'migrate-redis.ts', 'ai-sdk/'],
    },
  ],
  higherPackages: ['hooks', 'ui'],
});
