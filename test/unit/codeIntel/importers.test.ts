import * as assert from 'node:assert/strict';
import type { SearchHit } from '../../../src/core/ports';
import { importersOf } from '../../../src/host/codeIntel/importers';

/** A search over these files' lines, with the same regex the read actions would run (RE2 and JavaScript agree on it). */
function searchOver(files: Record<string, string>) {
  const queries: string[] = [];
  const search = async (query: string, options: { isRegex: boolean; limit: number }) => {
    queries.push(query);
    assert.equal(options.isRegex, true);
    const pattern = new RegExp(query);
    const hits: SearchHit[] = [];
    for (const [path, text] of Object.entries(files))
      text.split('\n').forEach((line, i) => {
        if (pattern.test(line)) hits.push({ path, line: i + 1, text: line });
      });
    return { hits, complete: true };
  };
  return { search, queries };
}

describe('code intelligence: the files importing a changed file', () => {
  const files = {
    'src/lib/c.ts': 'export const c = 1;\n',
    'src/lib/index.ts': "export * from './c';\n",
    'src/a.ts': "import { c } from './lib/c';\n",
    'src/b.tsx': "import { c } from './lib/c.js';\n",
    'src/d.ts': "const c = require('./lib');\n",
    'src/e.ts': "import { c } from './other/c';\n",
    'src/f.ts': "import { c } from '@app/lib/c';\n",
    'src/g.ts': "import './lib/c';\n",
    'src/lib/deep/h.ts': "export { c } from '../c';\n",
  };

  it('finds relative imports naming the file, with or without an extension, and through its folder index', async () => {
    const { search } = searchOver(files);
    const found = await importersOf(search)(['src/lib/c.ts', 'src/lib/index.ts']);
    assert.deepEqual(found.sort(), ['src/a.ts', 'src/b.tsx', 'src/d.ts', 'src/g.ts', 'src/lib/deep/h.ts']);
  });

  it('leaves out a same-named file elsewhere and package-style imports, and asks nothing for non-script files', async () => {
    const { search, queries } = searchOver(files);
    const found = await importersOf(search)(['src/lib/c.ts']);
    assert.ok(!found.includes('src/e.ts') && !found.includes('src/f.ts'), found.join(', '));
    assert.deepEqual(await importersOf(search)(['README.md']), []);
    assert.equal(queries.length, 1, 'a Markdown file has no importers to search for');
  });
});
