// Four bundles: the activation shim (dist/extension.js: tiny, so activation costs almost
// nothing), the extension host's composition root with everything it uses (dist/main.js, loaded
// by the shim right after activate returns), the `tasklane` command line (dist/cli.js), and the
// sidebar webview (dist/webview.js, browser).
// The sql.js wasm is copied next to them and loaded at run time, off activation.
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'none',
};

const extension = {
  ...common,
  entryPoints: ['src/extension.ts'],
  outfile: 'dist/extension.js',
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: ['vscode', './main.js'],
};

const composition = {
  ...extension,
  entryPoints: ['src/host/main.ts'],
  outfile: 'dist/main.js',
  external: ['vscode'],
};

/** The `tasklane` command line (bin/tasklane.js loads it): the core with a Node host, no VS Code. */
const cli = {
  ...common,
  entryPoints: ['src/cli/bin.ts'],
  outfile: 'dist/cli.js',
  format: 'cjs',
  platform: 'node',
  target: 'node20',
};

const webview = {
  ...common,
  entryPoints: ['src/webview/main.ts'],
  outfile: 'dist/webview.js',
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
};

function copyAssets() {
  fs.mkdirSync('dist', { recursive: true });
  fs.copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), path.join('dist', 'sql-wasm.wasm'));
}

async function main() {
  copyAssets();
  if (watch) {
    for (const options of [extension, composition, cli, webview]) await (await esbuild.context(options)).watch();
    return;
  }
  await Promise.all([extension, composition, cli, webview].map((options) => esbuild.build(options)));
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
