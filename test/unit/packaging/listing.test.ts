import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pngSize } from '../support/png';
import { localizedManifest } from '../../support/manifest';

// What the Marketplace and Open VSX list: the manifest's listing fields, the icon rendered from the
// SVG, the packaged README (one truth with the manifest and the repository) and the changelog.
// The .vsix itself is opened by vsix.test.ts.

const root = path.resolve(__dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

interface Manifest {
  version: string;
  license: string;
  repository: { url: string };
  homepage?: string;
  bugs?: { url: string };
  qna?: string | false;
  icon?: string;
  galleryBanner?: { color?: string; theme?: string };
  keywords?: string[];
  categories?: string[];
  extensionKind?: string[];
  scripts: Record<string, string>;
  contributes: {
    configuration: { properties: Record<string, unknown> } | Array<{ properties: Record<string, unknown> }>;
    commands: Array<{ title: string; category?: string }>;
  };
}
// As the listing shows it: the manifest's %key% strings resolved from package.nls.json.
const manifest = localizedManifest() as unknown as Manifest;
/** `owner/name` of the repository package.json names. */
const repo = /github\.com\/([^/]+\/[^/.]+)/.exec(manifest.repository.url)?.[1] ?? '';
/** The packaged README: the one `npm run package` hands vsce. */
const LISTING = 'docs/marketplace/README.md';

/** VS Code's own list of extension categories (EXTENSION_CATEGORIES in VS Code 1.139; the manifest reference lists them too). */
const VSCODE_CATEGORIES = [
  'AI',
  'Azure',
  'Chat',
  'Data Science',
  'Debuggers',
  'Extension Packs',
  'Education',
  'Formatters',
  'Keymaps',
  'Language Packs',
  'Linters',
  'Machine Learning',
  'Notebooks',
  'Programming Languages',
  'SCM Providers',
  'Snippets',
  'Testing',
  'Themes',
  'Visualization',
  'Other',
];

function trackedFiles(): Set<string> {
  const run = spawnSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return new Set(run.stdout.split('\n').filter(Boolean));
}

/** The anchors GitHub gives a Markdown file's headings. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const match of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    anchors.add(
      match[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-'),
    );
  }
  return anchors;
}

describe('packaging: the listing', () => {
  it('names the repository the links point at', () => {
    assert.match(repo, /^[^/]+\/[^/]+$/, `no GitHub repository in ${manifest.repository.url}`);
  });

  it('has the listing fields: icon, banner, keywords, categories, links, license', () => {
    assert.equal(manifest.icon, 'media/icon.png');
    assert.match(manifest.galleryBanner?.color ?? '', /^#[0-9a-f]{6}$/i);
    assert.ok(['dark', 'light'].includes(manifest.galleryBanner?.theme ?? ''), 'galleryBanner.theme is dark or light');
    const keywords = manifest.keywords ?? [];
    assert.ok(keywords.length >= 5 && keywords.length <= 30, `${keywords.length} keywords`);
    assert.equal(new Set(keywords).size, keywords.length, 'keywords repeat');
    const categories = manifest.categories ?? [];
    assert.ok(categories.length > 0, 'no categories');
    for (const category of categories) assert.ok(VSCODE_CATEGORIES.includes(category), `"${category}" is not a Marketplace category`);
    assert.equal(manifest.homepage, `https://github.com/${repo}#readme`);
    assert.equal(manifest.bugs?.url, `https://github.com/${repo}/issues`);
    assert.equal(manifest.qna, false, 'questions go to the issues (bugs), not a Marketplace Q&A nobody reads');
    assert.equal(manifest.license, 'MIT');
    assert.match(read('LICENSE'), /MIT License/);
  });

  it('runs next to the code: extensionKind is ["workspace"]', () => {
    assert.deepEqual(manifest.extensionKind, ['workspace']);
  });

  it('renders the icon from the SVG at package time; no PNG is committed', () => {
    assert.match(manifest.scripts['vscode:prepublish'] ?? '', /node scripts\/renderIcon\.mjs/);
    assert.match(read('.gitignore'), /^media\/icon\.png$/m);
    assert.ok(!trackedFiles().has('media/icon.png'), 'media/icon.png is committed');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-icon-'));
    try {
      const out = path.join(dir, 'icon.png');
      const run = spawnSync(process.execPath, [path.join(root, 'scripts/renderIcon.mjs'), '--out', out], { cwd: root, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(pngSize(fs.readFileSync(out)), { width: 256, height: 256 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('packages with the listing README and the changelog', () => {
    assert.equal(manifest.scripts.package, 'node scripts/package.mjs');
    const script = read('scripts/package.mjs');
    assert.match(script, new RegExp(`const PACKAGED_README = '${LISTING.replace(/\//g, '\\/')}'`));
    assert.match(script, /'--readme-path', PACKAGED_README/);
    assert.match(script, /'--changelog-path', 'CHANGELOG\.md'/);
  });
});

describe('packaging: the listing README', () => {
  const text = read(LISTING);
  const links = [...text.matchAll(/(!?)\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => ({ image: m[1] === '!', url: m[2]! }));
  const tracked = trackedFiles();

  it('links only absolutely, over https (a listing has no repository around it)', () => {
    assert.ok(links.length > 5, 'the README links nothing');
    for (const { url } of links) assert.match(url, /^https:\/\//, `relative or insecure link: ${url}`);
    assert.doesNotMatch(text, /<img|<svg/i, 'images are Markdown images of committed PNGs');
  });

  it("shows the committed pictures of the thread, an approval and a chore, by the repository's raw URL", () => {
    const images = links.filter((link) => link.image).map((link) => link.url);
    const prefix = `https://raw.githubusercontent.com/${repo}/main/`;
    for (const url of images) {
      assert.ok(url.startsWith(prefix), `${url} is not on ${prefix}`);
      const file = url.slice(prefix.length);
      assert.match(file, /^docs\/marketplace\/screenshots\/[a-z-]+\.png$/);
      assert.ok(tracked.has(file), `${file} is not committed (npm run screenshots takes it)`);
    }
    const names = images.map((url) => path.basename(url, '.png')).sort();
    assert.deepEqual(names, ['approval', 'chore', 'chore-review', 'diff-approve', 'thread']);
  });

  it('links into the repository only at files and headings that exist', () => {
    const prefix = `https://github.com/${repo}/blob/main/`;
    const inRepo = links.filter((link) => link.url.startsWith(prefix));
    assert.ok(inRepo.length >= 3);
    for (const { url } of inRepo) {
      const [file, anchor] = url.slice(prefix.length).split('#') as [string, string | undefined];
      assert.ok(tracked.has(file) || fs.existsSync(path.join(root, file)), `${url}: no ${file}`);
      if (anchor) assert.ok(headingAnchors(read(file)).has(anchor), `${url}: ${file} has no heading #${anchor}`);
    }
  });

  it('names only settings and commands the manifest contributes', () => {
    const configuration = manifest.contributes.configuration;
    const settings = Object.keys(Object.assign({}, ...(Array.isArray(configuration) ? configuration : [configuration]).map((c) => c.properties)));
    const named = [...text.matchAll(/`(tasklane\.[\w.*]+)`/g)].map((m) => m[1]!);
    assert.ok(named.length > 5);
    for (const setting of named) {
      const exists = setting.endsWith('.*') ? settings.some((s) => s.startsWith(setting.slice(0, -1))) : settings.includes(setting);
      assert.ok(exists, `${setting} is not a contributed setting`);
    }
    const titles = manifest.contributes.commands.map((c) => (c.category ? `${c.category}: ${c.title}` : c.title));
    const commands = [...text.matchAll(/\*\*(Tasklane: [^*]+)\*\*/g)].map((m) => m[1]!);
    assert.ok(commands.length > 3);
    for (const command of commands)
      assert.ok(
        titles.some((t) => t.startsWith(command)),
        `"${command}" is not a contributed command`,
      );
  });

  it('says what leaves the machine, to whom, when and under which settings, and that nothing is collected', () => {
    const privacy = /## Data and privacy\n([\s\S]*?)\n## /.exec(text)?.[1];
    assert.ok(privacy, 'no "## Data and privacy" section');
    assert.match(privacy, /collects no telemetry/);
    assert.match(privacy, /\| what \| to whom \| when \| controlled by \|/);
    for (const destination of [/model provider/, /MCP server/, /Slack, webhook or email/]) assert.match(privacy, destination);
  });

  it('says where it runs: the remote setups, and why next to the code', () => {
    const where = /## Where it runs\n([\s\S]*?)\n## /.exec(text)?.[1];
    assert.ok(where, 'no "## Where it runs" section');
    assert.match(where, /"extensionKind": \["workspace"\]/);
    for (const setup of ['Remote-SSH', 'WSL', 'Dev Containers', 'Codespaces', 'code-server'])
      assert.match(where, new RegExp(`^\\| [^|]*${setup}[^|]*\\| yes`, 'm'));
  });

  it('is for people who install Tasklane, not for its developers', () => {
    assert.doesNotMatch(text, /npm ci|apt-get|provision|sample-workspace/);
    for (const section of ['What it looks like', 'Choosing a model', 'Chores', 'Security in short', 'Data and privacy', 'Where it runs'])
      assert.match(text, new RegExp(`^## ${section}$`, 'm'));
  });
});

describe('packaging: the changelog', () => {
  const text = read('CHANGELOG.md');

  it('follows Keep a Changelog: Unreleased, then each version with its date, newest first', () => {
    assert.match(text, /keepachangelog\.com\/en\/1\.1\.0/);
    const versions = [...text.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => ({ version: m[1]!, date: m[2] }));
    assert.equal(versions[0]?.version, 'Unreleased');
    assert.ok(
      versions.some((v) => v.version === manifest.version && v.date),
      `no dated "## [${manifest.version}] - YYYY-MM-DD" for package.json's version`,
    );
    for (const { version, date } of versions.slice(1)) assert.ok(date, `${version} has no date`);
    const dates = versions.slice(1).map((v) => v.date!);
    assert.deepEqual(dates, [...dates].sort().reverse(), 'versions are not newest first');
    for (const { version } of versions) assert.match(text, new RegExp(`^\\[${version}\\]: https://github\\.com/${repo}/`, 'm'), `no link for [${version}]`);
    for (const kind of text.matchAll(/^### (.+)$/gm))
      assert.ok(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'].includes(kind[1]!), `"### ${kind[1]}" is not a Keep a Changelog kind`);
  });
});
