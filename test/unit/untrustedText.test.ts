import * as assert from 'node:assert/strict';
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
});
