import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// Code comments cite the design by section ("docs/DESIGN.md §6"). A citation a contributor
// cannot follow (a file outside the repository, a section that does not exist) is a false comment.
describe('docs/DESIGN.md citations', () => {
  const root = path.resolve(__dirname, '../..');
  const sourceDirs = ['src', 'test', 'bench', 'eslint-rules'];

  function sourceFiles(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
      // This file names the pattern it looks for; it cites nothing.
      return /\.(ts|js|mjs|cjs)$/.test(entry.name) && full !== __filename ? [full] : [];
    });
  }

  const citations = sourceDirs.flatMap((dir) =>
    sourceFiles(path.join(root, dir)).flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (line.includes('DESIGN.md') ? [{ at: `${path.relative(root, file)}:${i + 1}`, line }] : [])),
    ),
  );

  it('are many, so this check is looking at the right files', () => {
    assert.ok(citations.length >= 30, `only ${citations.length} citations found`);
  });

  it('every one names docs/DESIGN.md, the file in this repository', () => {
    const bare = citations.filter((c) => /(^|[^/\w])DESIGN\.md/.test(c.line) && !/docs\/DESIGN\.md/.test(c.line));
    assert.deepEqual(
      bare.map((c) => c.at),
      [],
    );
  });

  it('every cited section exists in docs/DESIGN.md', () => {
    const design = fs.readFileSync(path.join(root, 'docs/DESIGN.md'), 'utf8');
    const sections = new Set([...design.matchAll(/^## §(\d+) /gm)].map((m) => m[1]));
    const missing = citations.flatMap((c) => {
      const cited = [...(c.line.match(/DESIGN\.md((?:,? ?§\d+)+)/)?.[1].matchAll(/§(\d+)/g) ?? [])].map((m) => m[1]);
      return cited.filter((n) => !sections.has(n)).map((n) => `${c.at} cites §${n}`);
    });
    assert.deepEqual(missing, []);
  });
});
