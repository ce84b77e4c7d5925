// Import rules for src/ (pnpm lint; the rules themselves: scripts/dependency-rules.cjs).
// Layers bottom first: a layer imports only the ones above it in this list. The chunks in
// `lazy` are fetched on first use (lazy-chunk.ts): a static import would put them in the
// first paint that test/pack/size-budget.test.ts measures.
const { dependencyRules } = require('../../scripts/dependency-rules.cjs');

module.exports = dependencyRules({
  layers: [
    {
      name: 'shared',
      paths: [
        'cx.ts',
        'bidi-name.tsx',
        'pretty-json.tsx',
        'lazy-chunk.ts',
        'error-words.ts',
        'labels.ts',
        'interrupt-labels.ts',
      ],
      why: 'What interrupts/ and the components both use.',
    },
    { name: 'interrupts', paths: ['interrupts/'] },
    { name: 'components', paths: ['*'] },
    { name: 'entry', paths: ['index.ts'] },
  ],
  lazy: [
    { path: 'message-editor.tsx' },
    { path: 'composer-attachments.tsx' },
    { path: 'stick-to-bottom.tsx' },
    { path: 'outside-code.ts' },
    { path: 'highlight.tsx' },
    { path: 'interrupts/open-card.tsx' },
    { path: 'deferred-parts.ts' },
    { path: 'markdown-append.ts' },
  ],
  higherPackages: [],
});
