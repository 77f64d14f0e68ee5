/**
 * Jest's transform of TypeScript (and of the ESM-only packages it must load as CommonJS): esbuild
 * compiles each file on its own to CommonJS for ES2022, as `tsc` would with `isolatedModules` and
 * `esModuleInterop`, with a source map for stack traces. Type-checking is `tsc --noEmit` in
 * `npm run lint`. esbuild takes about a millisecond a file, so a fresh clone (an empty jest cache)
 * pays almost nothing for it.
 */
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { extname } = require('node:path');
const esbuild = require('esbuild');

const LOADERS = { '.ts': 'ts', '.tsx': 'tsx', '.js': 'js', '.jsx': 'jsx' };
/** What the output depends on beside the file itself: this transform and esbuild's version. */
const VERSION = createHash('sha256').update(readFileSync(__filename)).update(esbuild.version).digest('hex');

module.exports = {
  process(source, path) {
    const { code, map } = esbuild.transformSync(source, {
      loader: LOADERS[extname(path)] ?? 'js',
      format: 'cjs',
      target: 'es2022',
      platform: 'node',
      sourcefile: path,
      sourcemap: 'external',
      sourcesContent: false,
      tsconfigRaw: { compilerOptions: { useDefineForClassFields: true } },
      // `import()` becomes a `require` (as tsc writes it for CommonJS), so jest loads the module.
      supported: { 'dynamic-import': false },
    });
    return { code, map };
  },
  getCacheKey(source, path) {
    return createHash('sha256').update(VERSION).update(path).update('\0').update(source).digest('hex');
  },
};
