import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as ts from 'typescript';

// Each layer is type-checked with only its own runtime's types (tsconfig.<layer>.json): check a
// fixture under each layer's options and expect exactly the lines marked as not allowed to fail.
describe('type programs: each layer sees only its runtime (docs/DESIGN.md §1)', function () {
  this.timeout(60_000);
  const root = path.resolve(__dirname, '../..');
  // Parsed lib and @types files are shared by the four programs (parsing is most of the cost).
  const parsedFiles = new Map<string, ts.SourceFile | undefined>();

  function failingLines(layer: string): number[] {
    const configFile = path.join(root, `tsconfig.${layer}.json`);
    const parsed = ts.getParsedCommandLineOfConfigFile(
      configFile,
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')) },
    );
    assert.ok(parsed, `cannot read ${configFile}`);
    const fixture = path.join(root, 'test/lint-fixtures/types', `${layer}.ts`);
    const host = ts.createCompilerHost(parsed.options);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, language, ...rest) => {
      const key = `${fileName}\0${JSON.stringify(language)}`;
      if (!parsedFiles.has(key)) parsedFiles.set(key, read(fileName, language, ...rest));
      return parsedFiles.get(key);
    };
    const program = ts.createProgram([fixture], parsed.options, host);
    const source = program.getSourceFile(fixture);
    assert.ok(source);
    const lines = ts.getPreEmitDiagnostics(program, source).map((d) => source.getLineAndCharacterOfPosition(d.start ?? 0).line + 1);
    return [...new Set(lines)].sort((a, b) => a - b);
  }

  it('src/core: Node, but neither the DOM nor mocha nor vscode', () => {
    assert.deepEqual(failingLines('core'), [2, 3, 4]);
  });

  it('src/shared: neither the DOM nor Node nor vscode', () => {
    assert.deepEqual(failingLines('shared'), [2, 3, 4]);
  });

  it('src/webview: the DOM, but neither Node nor vscode', () => {
    assert.deepEqual(failingLines('webview'), [2, 3, 4]);
  });

  it('src/host: Node and vscode, but neither the DOM nor mocha', () => {
    assert.deepEqual(failingLines('host'), [2, 3]);
  });
});
