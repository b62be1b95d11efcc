import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as yauzl from 'yauzl';
import { pngSize } from '../support/png';

// The .vsix a person installs, opened as what it is (a zip): `npm run package`'s own script builds
// it into a temporary folder (vsce builds first, only when a source changed since the last build,
// so in `npm test`, after the build step, this is packaging alone: a few seconds).

const root = path.resolve(__dirname, '../../..');
const MAX_BYTES = 3 * 1024 * 1024;

/** Every entry of a zip, by name. */
function readZip(file: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const entries = new Map<string, Buffer>();
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** What the extension needs at run time, as paths in the .vsix: everything else is a leak. */
const ALLOWED = [
  /^\[Content_Types\]\.xml$/,
  /^extension\.vsixmanifest$/,
  /^extension\/package\.json$/,
  // The manifest's strings (English, and any translation next to it).
  /^extension\/package\.nls(\.[\w-]+)?\.json$/,
  // The host's strings (l10n/bundle.l10n.json, and any translation next to it).
  /^extension\/l10n\/bundle\.l10n(\.[\w-]+)?\.json$/,
  // The sidebar's words in English by key, which the host translates (src/host/sidebarProvider.ts).
  /^extension\/l10n\/webview\.words\.json$/,
  /^extension\/readme\.md$/,
  /^extension\/changelog\.md$/,
  /^extension\/LICENSE\.txt$/,
  // The bundles the extension host and the sidebar load; not the command line's dist/cli.js, no source maps.
  /^extension\/dist\/(extension|main|webview)\.js$/,
  // What main.js loads on first use (the model SDKs, the MCP client, mail): see esbuild.js.
  /^extension\/dist\/lazy\/[\w-]+\.js$/,
  /^extension\/dist\/sql-wasm\.wasm$/,
  // The task-state icons of the webview (the @vscode/codicons font and its stylesheet).
  /^extension\/dist\/codicon\.(ttf|css)$/,
  /^extension\/media\/[\w./-]+\.(png|svg|css|md)$/,
  /^extension\/schemas\/[\w.-]+\.json$/,
  /^extension\/skills\/[\w-]+\/SKILL\.md$/,
];

describe('packaging: the .vsix', function () {
  this.timeout(240_000);
  const source = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  let dir: string;
  let vsix: string;
  let output: string;
  let entries: Map<string, Buffer>;

  before(async function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-vsix-'));
    vsix = path.join(dir, 'tasklane.vsix');
    const run = spawnSync(process.execPath, [path.join(root, 'scripts/package.mjs'), '--out', vsix], { cwd: root, encoding: 'utf8', timeout: 230_000 });
    output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, `npm run package's script failed (${run.status ?? run.signal ?? run.error?.message}):\n${output}`);
    entries = await readZip(vsix);
  });
  after(function () {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is packaged without a warning, and stays at most 3 MB', () => {
    assert.doesNotMatch(output, /\bWARNING\b/);
    assert.match(output, /no warnings/);
    const size = fs.statSync(vsix).size;
    assert.ok(size <= MAX_BYTES, `the .vsix is ${(size / 1024 / 1024).toFixed(2)} MB`);
  });

  it('holds only what the extension needs: nothing from src/, test/, bench/ or node_modules/', () => {
    const names = [...entries.keys()].filter((name) => !name.endsWith('/'));
    const leaks = names.filter((name) => !ALLOWED.some((pattern) => pattern.test(name)));
    assert.deepEqual(leaks, [], `files the extension does not need:\n${leaks.join('\n')}`);
    for (const name of names) assert.doesNotMatch(name, /^extension\/(src|test|bench|node_modules|docs|scripts|sample-workspace)\//);
    for (const needed of [
      'extension/dist/extension.js',
      'extension/dist/main.js',
      'extension/dist/webview.js',
      'extension/dist/sql-wasm.wasm',
      'extension/dist/codicon.ttf',
      'extension/media/tasklane.svg',
      // Without it every title and setting would read as its %key%.
      'extension/package.nls.json',
      'extension/l10n/bundle.l10n.json',
      'extension/l10n/webview.words.json',
    ])
      assert.ok(entries.has(needed), `${needed} is missing`);
  });

  it('carries the 256×256 icon, the changelog and the listing README (not the developers’ one)', () => {
    const icon = entries.get('extension/media/icon.png');
    assert.ok(icon, 'no extension/media/icon.png');
    assert.deepEqual(pngSize(icon), { width: 256, height: 256 });
    const changelog = entries.get('extension/changelog.md')?.toString('utf8') ?? '';
    assert.match(changelog, /^# Changelog/);
    assert.match(changelog, new RegExp(`^## \\[${String(source.version).replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
    const readme = entries.get('extension/readme.md')?.toString('utf8') ?? '';
    assert.match(readme, /^# Tasklane\n/);
    assert.match(readme, /^## Data and privacy$/m);
    assert.doesNotMatch(readme, /^## Set-up$/m, "the developers' README was packaged");
    assert.ok(!entries.has('extension/README.md'), 'the repository README is packaged beside the listing one');
  });

  it('has the manifest fields the listing needs, as package.json says them', () => {
    const packaged = JSON.parse(entries.get('extension/package.json')?.toString('utf8') ?? '{}') as Record<string, unknown>;
    for (const field of ['icon', 'extensionKind', 'keywords', 'categories', 'galleryBanner', 'repository', 'license', 'homepage', 'bugs', 'qna'])
      assert.deepEqual(packaged[field], source[field], `package.json's ${field} in the .vsix`);
    assert.deepEqual(packaged.extensionKind, ['workspace']);
    const xml = entries.get('extension.vsixmanifest')?.toString('utf8') ?? '';
    assert.match(xml, /<Icon>extension\/media\/icon\.png<\/Icon>/);
    assert.match(xml, /<Categories>AI,Chat<\/Categories>/);
    assert.match(xml, /Id="Microsoft\.VisualStudio\.Code\.ExtensionKind" Value="workspace"/);
    assert.match(xml, /Id="Microsoft\.VisualStudio\.Services\.Branding\.Color" Value="#[0-9a-fA-F]{6}"/);
    assert.match(xml, /Type="Microsoft\.VisualStudio\.Services\.Content\.Details" Path="extension\/readme\.md"/);
    assert.match(xml, /Type="Microsoft\.VisualStudio\.Services\.Content\.Changelog" Path="extension\/changelog\.md"/);
    assert.match(xml, /Type="Microsoft\.VisualStudio\.Services\.Icons\.Default" Path="extension\/media\/icon\.png"/);
    assert.match(xml, /Id="Microsoft\.VisualStudio\.Services\.Links\.Source" Value="https:\/\/github\.com\/tasklane\/tasklane\.git"/);
  });
});
