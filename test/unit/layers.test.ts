import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';

// The layer rule is only worth having if it fires: lint the fixtures that break it on purpose.
describe('lint: layer boundaries (docs/DESIGN.md §1)', function () {
  this.timeout(60_000);
  const root = path.resolve(__dirname, '../..');

  async function messagesFor(relative: string): Promise<string[]> {
    const eslint = new ESLint({ cwd: root, ignore: false });
    const [result] = await eslint.lintFiles([path.join(root, relative)]);
    return result.messages.filter((m) => m.ruleId === 'tasklane/layers').map((m) => `${m.line}: ${m.message}`);
  }

  it('rejects vscode, src/host and src/webview imports from src/core', async () => {
    const messages = await messagesFor('test/lint-fixtures/src/core/badCore.ts');
    assert.equal(messages.length, 3, messages.join('\n'));
    assert.match(messages[0], /^2: src\/core must not import 'vscode'/);
    assert.match(messages[1], /^3: src\/core must not import src\/host/);
    assert.match(messages[2], /^4: src\/core must not import src\/webview/);
  });

  it('lets src/webview import only src/shared and its component library', async () => {
    const messages = await messagesFor('test/lint-fixtures/src/webview/badWebview.ts');
    assert.deepEqual(
      messages.map((m) => m.split(':')[0]),
      ['2', '3'],
    );
  });

  it('lets src/shared import only zod and itself', async () => {
    const messages = await messagesFor('test/lint-fixtures/src/shared/badShared.ts');
    assert.deepEqual(
      messages.map((m) => m.split(':')[0]),
      ['2', '3', '4', '5'],
      messages.join('\n'),
    );
    assert.match(messages[0], /src\/shared may import only zod and src\/shared, not vscode/);
    assert.match(messages[3], /not node:fs/);
  });

  it('rejects src/webview imports from src/host', async () => {
    const messages = await messagesFor('test/lint-fixtures/src/host/badHost.ts');
    assert.equal(messages.length, 1, messages.join('\n'));
    assert.match(messages[0], /^3: src\/host must not import src\/webview/);
  });

  it('keeps the command line (src/cli) free of vscode and src/host, like the core', async () => {
    const messages = await messagesFor('test/lint-fixtures/src/cli/badCli.ts');
    assert.equal(messages.length, 2, messages.join('\n'));
    assert.match(messages[0], /^2: src\/cli must not import 'vscode'/);
    assert.match(messages[1], /^3: src\/cli must not import src\/host/);
  });
});
