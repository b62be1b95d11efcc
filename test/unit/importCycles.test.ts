import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';

// The cycle check is only worth having if it fires: lint fixtures that form cycles on purpose.
describe('lint: import cycles (type-only imports count)', function () {
  this.timeout(60_000);
  const root = path.resolve(__dirname, '../..');

  async function messagesFor(relative: string): Promise<Array<{ line: number; message: string }>> {
    const eslint = new ESLint({ cwd: root, ignore: false });
    const [result] = await eslint.lintFiles([path.join(root, relative)]);
    return result.messages.filter((m) => m.ruleId === 'tasklane-cycles/no-cycle').map((m) => ({ line: m.line, message: m.message }));
  }

  it('reports a value cycle, naming its path', async () => {
    const messages = await messagesFor('test/lint-fixtures/cycle/cycleA.ts');
    assert.deepEqual(
      messages.map((m) => m.line),
      [2],
      JSON.stringify(messages),
    );
    assert.match(
      messages[0].message,
      /Import cycle: test\/lint-fixtures\/cycle\/cycleA\.ts → test\/lint-fixtures\/cycle\/cycleB\.ts → test\/lint-fixtures\/cycle\/cycleA\.ts/,
    );
  });

  it('reports a cycle made only of `import type` edges', async () => {
    const messages = await messagesFor('test/lint-fixtures/cycle/typeCycleA.ts');
    assert.deepEqual(
      messages.map((m) => m.line),
      [2],
      JSON.stringify(messages),
    );
    assert.match(messages[0].message, /typeCycleA\.ts → .*typeCycleB\.ts → .*typeCycleA\.ts/);
  });

  it('stays quiet for a module that only imports into a cycle', async () => {
    assert.deepEqual(await messagesFor('test/lint-fixtures/cycle/noCycle.ts'), []);
  });
});
