import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ESLint } from 'eslint';

// The untrusted-text rule (eslint-rules/untrustedText.js) is only worth having if it fires: the
// fixture passes values around the neutraliser on purpose, and passes them through it.
describe('lint: notifications take untrusted text only through the neutraliser', function () {
  this.timeout(60_000);
  const root = path.resolve(__dirname, '../..');

  it('reports plain templates, error messages and variables built from values, and nothing else', async () => {
    const eslint = new ESLint({ cwd: root, ignore: false });
    const [result] = await eslint.lintFiles([path.join(root, 'test/lint-fixtures/untrusted/notices.ts')]);
    const lines = result.messages.filter((m) => m.ruleId === 'tasklane-text/untrusted-text').map((m) => m.line);
    assert.deepEqual(lines, [8, 9, 10, 11], JSON.stringify(result.messages));
  });

  // eslint-rules/untrustedLabel.js: tree items, the status bar, quick pick items, modal details.
  it('reports tree items, status bar text, quick pick items and modal details built from outside text, and nothing else', async () => {
    const eslint = new ESLint({ cwd: root, ignore: false });
    const file = path.join(root, 'test/lint-fixtures/untrusted/labels.ts');
    const [result] = await eslint.lintFiles([file]);
    const marked = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((text, i) => (text.endsWith('// reported') ? [i + 1] : []));
    assert.equal(marked.length, 11);
    const lines = [...new Set(result.messages.filter((m) => m.ruleId === 'tasklane-text/untrusted-label').map((m) => m.line))];
    assert.deepEqual(lines, marked, JSON.stringify(result.messages));
    // Type information reached the rule: a status union and a count were accepted by their types.
    assert.deepEqual(
      result.messages.filter((m) => m.fatal),
      [],
    );
  });
});
