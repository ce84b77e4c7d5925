// Import rules for src/ (pnpm lint; the rules themselves: scripts/dependency-rules.cjs).
// Layers bottom first: a layer imports only the ones above it in this list. The panel is
// fetched when first shown: a static import would put it in every page that renders the
// devtools' button.
const { dependencyRules } = require('../../scripts/dependency-rules.cjs');

module.exports = dependencyRules({
  layers: [
    {
      name: 'model',
      paths: ['model/'],
      why: 'What the devtools know, folded from observed events: plain data, no React.',
    },
    { name: 'recorder', paths: ['recorder.ts'], why: 'The page-wide listener and its state.' },
    { name: 'panel', paths: ['panel/'], why: 'The UI, a lazily loaded chunk.' },
    { name: 'components', paths: ['devtools.tsx', 'lazy-panel.tsx', 'off.ts'] },
    {
      name: 'stand-ins',
      paths: ['absent.ts'],
      why: "What the package is in a production build (the `production` condition's entry).",
    },
    { name: 'entries', paths: ['index.ts', 'production.ts'] },
  ],
  lazy: [{ path: 'panel/', why: 'Loaded when the panel is first shown.' }],
  higherPackages: ['server', 'ui'],
});
