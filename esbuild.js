// Four bundles: the activation shim (dist/extension.js: tiny, so activation costs almost
// nothing), the extension host's composition root with everything it uses (dist/main.js, loaded
// by the shim right after activate returns), the `tasklane` command line (dist/cli.js), and the
// sidebar webview (dist/webview.js, browser). Libraries the extension host needs only on some
// paths (a model SDK, the MCP client, email) are files of their own under dist/lazy/, loaded by
// the source's `import()` on first use, so main.js stays small (ext.bundle_bytes).
// The sql.js wasm is copied next to them and loaded at run time, off activation.
//   --production   minified, no source maps (what is packaged and tested)
//   --watch        rebuild on change
//   --if-stale     build only when the inputs changed since the last build of the same kind: the
//                  test command and packaging run after CI's own build step, and build once.
const crypto = require('node:crypto');
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const ifStale = process.argv.includes('--if-stale');
const STAMP = path.join('dist', '.build-inputs');

/**
 * Packages bundled from another of their builds. jsonc-parser's package entry is a UMD build that
 * requires './impl/format' at run time, which a bundle cannot resolve (the CLI failed at its first
 * mcp.json); its ES module build bundles whole. Absolute, so other bundles (the host test tier) use it too.
 */
const bundleAlias = { 'jsonc-parser': path.join(__dirname, 'node_modules/jsonc-parser/lib/esm/main.js') };

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
  legalComments: 'none',
  alias: bundleAlias,
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

/**
 * Loaded on first use: a dynamic `import()` of one of these specifiers in the extension host's
 * code becomes a require of its file under dist/lazy/ (static imports of them stay bundled, and
 * the bench's ext.bundle_bytes would show it). The MCP client's modules share one file.
 */
const LAZY = {
  '@anthropic-ai/sdk': 'anthropic-sdk',
  openai: 'openai',
  nodemailer: 'nodemailer',
  '@modelcontextprotocol/sdk/client/index.js': 'mcp-sdk',
  '@modelcontextprotocol/sdk/client/stdio.js': 'mcp-sdk',
  '@modelcontextprotocol/sdk/client/streamableHttp.js': 'mcp-sdk',
  '@modelcontextprotocol/sdk/types.js': 'mcp-sdk',
  '@modelcontextprotocol/sdk/client/auth.js': 'mcp-sdk',
  '@modelcontextprotocol/sdk/client/auth-extensions.js': 'mcp-sdk',
  '@modelcontextprotocol/sdk/client/sse.js': 'mcp-sdk',
};

/**
 * Loaded on first use by a synchronous `require()` inside a function (the source says why it cannot
 * wait for an `import()`): that require becomes one of its file under dist/lazy/. A top-level import
 * of one of these stays bundled.
 */
const LAZY_REQUIRE = {
  jsonata: 'jsonata',
  croner: 'croner',
  re2js: 're2js',
};

const specifierFilter = (specifiers) => new RegExp(`^(${specifiers.map((k) => k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);

/** @type {import('esbuild').Plugin} */
const lazyChunks = {
  name: 'lazy-chunks',
  setup(build) {
    build.onResolve({ filter: specifierFilter(Object.keys(LAZY)) }, (args) =>
      args.kind === 'dynamic-import' ? { path: `./lazy/${LAZY[args.path]}.js`, external: true } : undefined,
    );
    build.onResolve({ filter: specifierFilter(Object.keys(LAZY_REQUIRE)) }, (args) =>
      args.kind === 'require-call' ? { path: `./lazy/${LAZY_REQUIRE[args.path]}.js`, external: true } : undefined,
    );
  },
};

const composition = {
  ...extension,
  entryPoints: ['src/host/main.ts'],
  outfile: 'dist/main.js',
  external: ['vscode'],
  plugins: [lazyChunks],
  // import() becomes require(): the lazy files are CommonJS, loaded like the rest of the bundle.
  supported: { 'dynamic-import': false },
};

/** One CommonJS file per lazy chunk: everything its specifiers export. */
const lazyImports = [...new Set(Object.values(LAZY))].map((chunk) => ({
  ...common,
  stdin: {
    contents: Object.keys(LAZY)
      .filter((specifier) => LAZY[specifier] === chunk)
      .map((specifier) => `export * from ${JSON.stringify(specifier)};`)
      .join('\n'),
    resolveDir: __dirname,
    sourcefile: `lazy-${chunk}.js`,
  },
  outfile: `dist/lazy/${chunk}.js`,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
}));

/** One CommonJS file per synchronously required chunk: its module's exports as they are. */
const lazyRequires = Object.entries(LAZY_REQUIRE).map(([specifier, chunk]) => ({
  ...common,
  stdin: { contents: `module.exports = require(${JSON.stringify(specifier)});`, resolveDir: __dirname, sourcefile: `lazy-${chunk}.js` },
  outfile: `dist/lazy/${chunk}.js`,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
}));

const lazy = [...lazyImports, ...lazyRequires];

/** The `tasklane` command line (bin/tasklane.js loads it): the core with a Node host, no VS Code. */
const cli = {
  ...common,
  entryPoints: ['src/cli/bin.ts'],
  outfile: 'dist/cli.js',
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // The released CLI ships without package.json (src/cli/cliArtifact.ts): its version is built in.
  define: { TASKLANE_CLI_VERSION: JSON.stringify(require('./package.json').version) },
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
  // The sidebar's state icons: VS Code's codicon font and its stylesheet (which names the font
  // next to it), loaded by the webview from dist/ like its script.
  for (const file of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(require.resolve(`@vscode/codicons/dist/${file}`), path.join('dist', file));
}

/**
 * A hash of everything a build reads (sources, manifests, lockfile, this file, the mode), so a
 * build is skipped only when its output would be the same bytes; mtimes are not trusted (a clone
 * or a checkout sets them all).
 */
function inputsHash() {
  const hash = crypto.createHash('sha256').update(production ? 'production' : 'development');
  const files = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.push(full);
    }
  };
  walk('src');
  files.push('package.json', 'package-lock.json', 'esbuild.js', 'tsconfig.base.json');
  for (const file of files.sort()) hash.update(file).update('\0').update(fs.readFileSync(file)).update('\0');
  return hash.digest('hex');
}

function removeSourceMaps(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) removeSourceMaps(file);
    else if (entry.name.endsWith('.map')) fs.rmSync(file);
  }
}

async function main() {
  const inputs = watch ? '' : inputsHash();
  const outputs = [
    'dist/extension.js',
    'dist/main.js',
    'dist/cli.js',
    'dist/webview.js',
    'dist/sql-wasm.wasm',
    'dist/codicon.css',
    'dist/codicon.ttf',
    ...lazy.map((options) => options.outfile),
  ];
  if (ifStale && outputs.every((file) => fs.existsSync(file)) && fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === inputs) {
    process.stdout.write('build: dist/ was built from these sources already; not rebuilt\n');
    return;
  }
  fs.rmSync(STAMP, { force: true });
  // A production build after a development one: the development build's source maps would
  // otherwise stay in dist/ and be packaged (the .vsix test lists exactly what it may hold).
  if (production) removeSourceMaps('dist');
  copyAssets();
  if (watch) {
    for (const options of [extension, composition, cli, webview, ...lazy]) await (await esbuild.context(options)).watch();
    return;
  }
  await Promise.all([extension, composition, cli, webview, ...lazy].map((options) => esbuild.build(options)));
  fs.writeFileSync(STAMP, inputs);
}

// Options are exported so tests build exactly what `npm run build` does: the CLI for the release
// asset test, the shim and the composition root for the bundle size test.
module.exports = { cli, composition, extension, bundleAlias };

if (require.main === module)
  main().catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
