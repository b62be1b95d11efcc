// Three bundles: the activation shim (dist/extension.js: tiny, so activation costs almost
// nothing), the extension host's composition root with everything it uses (dist/main.js, loaded
// by the shim right after activate returns), and the sidebar webview (dist/webview.js, browser).
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
    for (const options of [extension, composition, webview]) await (await esbuild.context(options)).watch();
    return;
  }
  await Promise.all([esbuild.build(extension), esbuild.build(composition), esbuild.build(webview)]);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
