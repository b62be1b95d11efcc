import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// Issue 20: docs/ARCHITECTURE.md (and the other docs) must stay true. Every source path they name
// exists, in the repository or, for an example the README walks through, in sample-workspace/.
describe('docs: every source path the docs name exists', () => {
  const root = path.resolve(__dirname, '../..');
  const docs = [
    'README.md',
    'CONTRIBUTING.md',
    ...fs
      .readdirSync(path.join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  // Examples in the README, not files of this repository: what a person types in a chat, and a
  // file an auto-applied edit could add.
  const examples = new Set(['src/a.ts', 'test/x.test.ts']);

  it('names no file that is gone (a rename or a split leaves no stale path behind)', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const doc of docs) {
      const text = fs.readFileSync(path.join(root, doc), 'utf8');
      for (const [file] of text.matchAll(/\b(?:src|test|bench|scripts)\/[\w./-]*\.(?:ts|mjs|cjs|js|css|json)\b/g)) {
        checked++;
        if (examples.has(file) || fs.existsSync(path.join(root, file)) || fs.existsSync(path.join(root, 'sample-workspace', file))) continue;
        missing.push(`${doc}: ${file}`);
      }
    }
    assert.ok(checked > 100, `only ${checked} paths found: the pattern no longer matches the docs`);
    assert.deepEqual(missing, []);
  });
});
