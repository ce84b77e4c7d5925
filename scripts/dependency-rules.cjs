// The import rules every package checks in `pnpm lint` (scripts/lint-deps.mjs runs
// dependency-cruiser with each `packages/*/.dependency-cruiser.cjs`, which calls this).
// A package names its layers, bottom first; the rules follow from the order:
//   no-circular        no import cycle, type-only imports included
//   <layer>-upward     a layer imports only the layers below it (and itself)
//   not-in-a-layer     every source file belongs to a layer, so a new folder is placed
//   <chunk>-lazy       a lazily loaded module is reached by `import()` or `import type` only
//                      (its own folder excepted): a static import would pull it into the
//                      first paint
//   <feature>-host     a lazily loaded feature reaches the folder that loads it only
//                      through that folder's small host interface
//   no-higher-package  a package imports only the packages below it
// Test files are outside the rules (they may reach anything); cycles through them are not
// possible since nothing imports a test.

/** Escapes a folder or file path for a regular expression. */
const literal = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `'runs/'` -> everything in that folder; `'app.ts'` -> that one file (both under src/); a
 * path that starts with `^` is a regular expression already.
 */
function pattern(entry) {
  if (entry.startsWith('^')) return entry;
  return entry.endsWith('/') ? `^src/${literal(entry)}` : `^src/${literal(entry)}$`;
}

const TESTS = '\\.test\\.tsx?$';

/**
 * @param {object} spec
 * @param {{ name: string, paths: string[], why?: string }[]} spec.layers bottom first; a path
 *   ending in `/` is a folder, otherwise one file, both relative to `src/`; `*` is every file
 *   directly in `src/` that no layer names
 * @param {{ path: string, why?: string }[]} [spec.lazy] modules (or folders) loaded by `import()`
 * @param {{ feature: string, folder: string, host: string }[]} [spec.hosts]
 * @param {string[]} [spec.higherPackages] workspace packages this one must not import
 */
function dependencyRules(spec) {
  // '*' is every file directly in src/ that no other layer names.
  const named = spec.layers.flatMap((layer) =>
    layer.paths.filter((path) => path !== '*' && !path.includes('/') && !path.startsWith('^')),
  );
  const rest = `^src/(?!(?:${named.map(literal).join('|')})$)[^/]+$`;
  const layers = spec.layers.map((layer) => ({
    ...layer,
    patterns: layer.paths.map((path) => (path === '*' ? rest : pattern(path))),
  }));
  const forbidden = [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import cycle (type-only imports count): break it by moving the shared part down.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-resolvable',
      severity: 'error',
      comment: 'An import that resolves to no file (or a package this one does not depend on).',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'not-in-a-layer',
      severity: 'error',
      comment:
        'This file is in no layer of .dependency-cruiser.cjs: add its folder to the layer it belongs to.',
      from: { path: '^src/', pathNot: [TESTS, ...layers.flatMap((layer) => layer.patterns)] },
      to: {},
    },
  ];
  layers.forEach((layer, index) => {
    const above = layers.slice(index + 1);
    if (above.length === 0) return;
    forbidden.push({
      name: `${layer.name}-upward`,
      severity: 'error',
      comment: `${layer.name} (${layer.paths.join(', ')}) imports only the layers below it: ${
        layers
          .slice(0, index)
          .map((below) => below.name)
          .join(', ') || 'none'
      }. ${layer.why ?? ''}`.trim(),
      from: { path: layer.patterns, pathNot: TESTS },
      to: { path: above.flatMap((higher) => higher.patterns) },
    });
  });
  for (const chunk of spec.lazy ?? []) {
    const path = pattern(chunk.path);
    forbidden.push({
      name: `${chunk.path.replace(/\/$/, '').replace(/\.tsx?$/, '')}-lazy`,
      severity: 'error',
      comment:
        `${chunk.path} is loaded lazily: reach it with import() or import type, not a static import. ${
          chunk.why ?? ''
        }`.trim(),
      from: { path: '^src/', pathNot: [TESTS, path] },
      to: { path, dynamic: false, preCompilationOnly: false },
    });
  }
  for (const host of spec.hosts ?? []) {
    forbidden.push({
      name: `${host.feature.replace(/\/$/, '')}-host`,
      severity: 'error',
      comment: `${host.feature} is loaded lazily by ${host.folder} and reaches it only through ${host.host}.`,
      from: { path: pattern(host.feature), pathNot: TESTS },
      to: { path: pattern(host.folder), pathNot: pattern(host.host) },
    });
  }
  if (spec.higherPackages?.length) {
    const names = spec.higherPackages.map(literal).join('|');
    forbidden.push({
      name: 'no-higher-package',
      severity: 'error',
      comment: `A package imports only packages below it; not ${spec.higherPackages.join(', ')}.`,
      from: { path: '^src/' },
      to: { path: `^(\\.\\./|node_modules/@resumable/)(${names})/` },
    });
  }
  return {
    forbidden,
    options: {
      // Other packages (`../protocol/src/…` through the source condition) and node_modules
      // are leaves: named in the graph, not walked.
      doNotFollow: { path: ['node_modules', '^\\.\\./'] },
      // 'specify': type-only imports are in the graph (cycles count them) and marked, so the
      // lazy rules can allow `import type`.
      tsPreCompilationDeps: 'specify',
      tsConfig: { fileName: '../../tsconfig.base.json' },
      enhancedResolveOptions: {
        exportsFields: ['exports'],
        conditionNames: ['@resumable/source', 'import', 'types', 'default'],
        extensions: ['.ts', '.tsx', '.js', '.mjs', '.d.ts'],
      },
    },
  };
}

module.exports = { dependencyRules };
