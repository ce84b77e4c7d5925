// Import rules for src/ (pnpm lint; the rules themselves: scripts/dependency-rules.cjs).
// One flat folder under its entry: no cycles, and nothing imports the entry.
const { dependencyRules } = require('../../scripts/dependency-rules.cjs');

module.exports = dependencyRules({
  layers: [
    { name: 'modules', paths: ['^src/(?!index\\.ts$)'] },
    { name: 'entry', paths: ['index.ts'] },
  ],
  higherPackages: ['server', 'hooks', 'ui'],
});
