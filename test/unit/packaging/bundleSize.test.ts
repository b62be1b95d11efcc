import * as assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { build } from 'esbuild';
import type { BuildOptions, Metafile } from 'esbuild';

// What a window that uses Tasklane loads before its first model call: the activation shim and the
// composition root, built exactly as `npm run build --production` builds them (esbuild.js's own
// options). The limit is the 1.1 MB (bench/ uses 1 MB = 2^20 bytes); each library and
// layer has a budget so a failure names what grew, not just the total.
const root = path.resolve(__dirname, '../../..');
const MB = 1024 * 1024;
const LIMIT = 1.1 * MB;

/**
 * Bytes each part may add to dist/main.js (minified), about 15% over what it takes today. A library
 * not listed may add at most 40 KB; anything bigger belongs in a lazy chunk (esbuild.js LAZY,
 * LAZY_REQUIRE) or needs a budget here with the reason.
 */
const BUDGET: Record<string, number> = {
  re2js: 170_000, // linear-time regexes for model patterns, globs and chore expressions
  zod: 170_000, // namespace import only (`import * as z`): the named `z` import pulls every locale, ~300 KB
  yaml: 130_000, // chores.yaml (with positions for diagnostics) and skill frontmatter
  'sql.js': 50_000, // the store's glue; its wasm is a file of its own
  croner: 0, // schedules: dist/lazy/croner.js, required on the first chore schedule
  jsonata: 0, // chore expressions: dist/lazy/jsonata.js, required on the first compile
  'src/core': 540_000,
  'src/host': 200_000,
  'src/shared': 20_000,
};
const OTHER_LIBRARY = 40_000;

function partOf(input: string): string {
  const library = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (library) return library[1]!;
  return input.split('/').slice(0, 2).join('/');
}

async function bundleParts(options: BuildOptions): Promise<{ bytes: number; parts: Map<string, number> }> {
  const result = await build({ ...options, minify: true, sourcemap: false, write: false, metafile: true, logLevel: 'error', absWorkingDir: root });
  const [output] = Object.values((result.metafile as Metafile).outputs);
  const parts = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output!.inputs)) parts.set(partOf(input), (parts.get(partOf(input)) ?? 0) + bytesInOutput);
  return { bytes: output!.bytes, parts };
}

describe('bundle size: what a window with Tasklane work loads', function () {
  this.timeout(120_000);

  it(`the shim and dist/main.js stay within ${LIMIT / MB} MB, each part within its budget`, async () => {
    const { extension, composition } = createRequire(__filename)(path.join(root, 'esbuild.js')) as Record<'extension' | 'composition', BuildOptions>;
    const shim = await bundleParts(extension);
    const main = await bundleParts(composition);
    const largest = [...main.parts].sort((a, b) => b[1] - a[1]).slice(0, 12);
    const shown = largest.map(([part, bytes]) => `${part} ${Math.round(bytes / 1024)} KB`).join(', ');
    const over = [...main.parts]
      .filter(([part, bytes]) => bytes > (BUDGET[part] ?? (part.startsWith('src/') ? 0 : OTHER_LIBRARY)))
      .map(([part, bytes]) => `${part}: ${bytes} bytes, budget ${BUDGET[part] ?? OTHER_LIBRARY}`);
    assert.deepEqual(over, [], `parts over their budget (largest: ${shown})`);
    assert.ok(shim.bytes < 8 * 1024, `the activation shim is ${shim.bytes} bytes: it must stay a few KB`);
    assert.ok(shim.bytes + main.bytes <= LIMIT, `shim + main.js = ${shim.bytes + main.bytes} bytes > ${Math.floor(LIMIT)} (largest: ${shown})`);
  });
});
