import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateTasklane, modelSaw, quiesce, requestsText, resetModel, route, scriptModel, until, useScriptedModel } from './support/tasklane';
import { asPerson, sendMessage } from './support/asPerson';

// The code actions through VS Code's own TypeScript language features, on a small TypeScript
// sample written into the workspace: what the model gets back is what the language server says.
describe('host: code intelligence from the language servers', function () {
  this.timeout(180_000);
  const dir = `src/intel-${Date.now().toString(36)}`;
  const root = () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('the host tier opens the sample workspace; no folder is open');
    return folder.uri;
  };
  const shapes = [
    '/** The area of a circle of this radius. */',
    'export function circleArea(radius: number): number {',
    '  return Math.PI * radius * radius;',
    '}',
    '',
  ].join('\n');
  const use = ["import { circleArea } from './shapes';", 'export const small = circleArea(1);', 'export const big = circleArea(10);', ''].join('\n');

  before(async () => {
    await activateTasklane();
    await quiesce();
    await useScriptedModel();
    fs.mkdirSync(path.join(root().fsPath, dir), { recursive: true });
    fs.writeFileSync(path.join(root().fsPath, dir, 'shapes.ts'), shapes);
    fs.writeFileSync(path.join(root().fsPath, dir, 'use.ts'), use);
    fs.writeFileSync(path.join(root().fsPath, dir, 'broken.ts'), "export const count: number = 'three';\n");
    // Never opened by the test: the edits below must get them checked by themselves. closed.ts has an
    // error already (line 2), which an edit to its line 1 must not be blamed for.
    fs.writeFileSync(path.join(root().fsPath, dir, 'closed.ts'), 'export const fine: number = 1;\nexport const old: string = 2;\n');
    fs.writeFileSync(path.join(root().fsPath, dir, 'lib2.ts'), 'export function twice(n: number): number {\n  return n * 2;\n}\n');
    fs.writeFileSync(path.join(root().fsPath, dir, 'caller2.ts'), "import { twice } from './lib2';\nexport const four = twice(2);\n");
    // A project of its own, so the language server does not depend on the folder's other files.
    fs.writeFileSync(
      path.join(root().fsPath, dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'commonjs' }, include: ['*.ts'] }),
    );
    // The TypeScript features start with the first TypeScript document; wait until they answer.
    const useUri = vscode.Uri.joinPath(root(), dir, 'use.ts');
    await vscode.workspace.openTextDocument(useUri);
    // Ready once they have loaded the project: a use resolves to the declaration in the other file.
    await until(
      'the TypeScript language features to load the sample project',
      async () => {
        const found =
          (await vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink>>(
            'vscode.executeDefinitionProvider',
            useUri,
            new vscode.Position(1, 22),
          )) ?? [];
        return found.some((l) => ('targetUri' in l ? l.targetUri : l.uri).path.endsWith('/shapes.ts'));
      },
      120_000,
    );
    const brokenUri = vscode.Uri.joinPath(root(), dir, 'broken.ts');
    // The TypeScript features report problems for files shown in an editor.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(brokenUri), { preview: false, preserveFocus: true });
    await until('the type error in the Problems view', async () => vscode.languages.getDiagnostics(brokenUri).length > 0, 60_000);
  });
  after(async () => {
    const shown = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.path.includes(`/${dir}/`));
    await vscode.window.tabGroups.close(shown);
    fs.rmSync(path.join(root().fsPath, dir), { recursive: true, force: true });
    await resetModel();
  });

  it('definition, references, hover, outline, problems and symbols come back with the right places and text', async () => {
    const name = `code-intel-${Date.now().toString(36)}`;
    const r = route('code-intel');
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name, instruction: 'Look at circleArea', mode: 'simple' } }] },
      {
        toolCalls: [
          { name: 'inspect_symbol', arguments: { path: `${dir}/use.ts`, line: 2, symbol: 'circleArea', what: 'definition' } },
          { name: 'inspect_symbol', arguments: { path: `${dir}/shapes.ts`, line: 2, symbol: 'circleArea', what: 'references' } },
          { name: 'inspect_symbol', arguments: { path: `${dir}/use.ts`, line: 3, symbol: 'circleArea', what: 'hover' } },
          { name: 'get_outline', arguments: { path: `${dir}/shapes.ts` } },
          { name: 'inspect_symbol', arguments: { path: '../outside.ts', line: 1, what: 'definition' } },
          { name: 'get_diagnostics', arguments: { paths: [`${dir}/broken.ts`, `${dir}/use.ts`], severity: 'error' } },
          { name: 'find_symbols', arguments: { query: 'circleArea' } },
        ],
      },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'looked' } }] },
    ]);
    await sendMessage(`look at circleArea (${name}) ${r}`);
    const seen = await modelSaw(/"role":"tool"/, 0, r);
    const results = JSON.parse(seen) as { messages: Array<{ role: string; content: string }> };
    const tool = results.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.equal(tool.length, 7, tool.join('\n'));
    const [definition, references, hover, outline, outside, problems, symbols] = tool as [string, string, string, string, string, string, string];
    assert.equal(definition, `${dir}/shapes.ts:2:17: export function circleArea(radius: number): number {`);
    assert.deepEqual(references.split('\n').sort(), [
      `${dir}/shapes.ts:2:17: export function circleArea(radius: number): number {`,
      `${dir}/use.ts:1:10: import { circleArea } from './shapes';`,
      `${dir}/use.ts:2:22: export const small = circleArea(1);`,
      `${dir}/use.ts:3:20: export const big = circleArea(10);`,
    ]);
    assert.match(hover, /circleArea\(radius: number\): number/);
    assert.match(hover, /The area of a circle of this radius\./);
    assert.match(outline, /^function circleArea .*\([12]-4\)$/m);
    assert.match(outside, /^Error: .*outside the workspace/);
    assert.match(problems, new RegExp(`^${dir}/broken\\.ts:1:14: error ts\\(2322\\): Type 'string' is not assignable to type 'number'\\.$`));
    assert.match(symbols, new RegExp(`^${dir}/shapes\\.ts:2:\\d+: function circleArea`, 'm'));
    assert.ok(
      (await requestsText(r)).every((t) => !t.includes('lib.es5.d.ts')),
      'a location outside the workspace was shown',
    );
  });

  it('an applied edit that introduces a type error: the task is told with the outcome', async () => {
    const name = `break-it-${Date.now().toString(36)}`;
    const r = route('problems-after');
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name, instruction: 'Make big use ten', mode: 'simple', actionSets: ['files'] } }] },
      {
        toolCalls: [{ name: 'replace_in_file', arguments: { path: `${dir}/use.ts`, edits: [{ oldText: 'circleArea(10)', newText: "circleArea('ten')" }] } }],
      },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'changed' } }] },
    ]);
    // The person has the file open, as when they look at what the task works on: VS Code's
    // TypeScript features check only files open in a tab.
    await vscode.window.showTextDocument(vscode.Uri.joinPath(root(), dir, 'use.ts'), { preview: false, preserveFocus: true });
    await sendMessage(`make big use ten (${name}) ${r}`);
    const pending = await until('the proposal to wait for approval', async () => {
      const { tasks } = (await vscode.commands.executeCommand('tasklane.getState')) as { tasks: Array<{ name: string; waitingForApproval?: string }> };
      return tasks.find((t) => t.name === name && t.waitingForApproval)?.waitingForApproval;
    });
    const result = await asPerson(() => vscode.commands.executeCommand<{ status: string }>('tasklane.approve', pending), 'Approve');
    assert.equal(result.status, 'applied', JSON.stringify(result));
    // The wake-up turn's request carries the new error, placed where the language server put it.
    // Counted once, though both the Problems view (the file is in a tab) and the TypeScript server's direct answer name it.
    const seen = await modelSaw(/New problems in the changed files since the edit \(1 error, 0 warnings\)/, 0, r);
    assert.match(seen, new RegExp(`${dir}/use\\.ts:3:31: error ts\\(2345\\): Argument of type 'string' is not assignable to parameter of type 'number'`));
    // The error that was there before (broken.ts is not in this edit) is not blamed on it.
    assert.doesNotMatch(seen, /broken\.ts/);
  });
  /** Runs a task whose one turn proposes `edit`, approves it, and returns the next request the model got (it carries the outcome). */
  async function applyAndSee(label: string, edit: { name: string; arguments: unknown }, wanted: RegExp): Promise<string> {
    const name = `${label}-${Date.now().toString(36)}`;
    const r = route(label);
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name, instruction: label, mode: 'simple', actionSets: ['files'] } }] },
      { toolCalls: [edit] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'done' } }] },
    ]);
    await sendMessage(`${label} (${name}) ${r}`);
    const pending = await until('the proposal to wait for approval', async () => {
      const { tasks } = (await vscode.commands.executeCommand('tasklane.getState')) as { tasks: Array<{ name: string; waitingForApproval?: string }> };
      return tasks.find((t) => t.name === name && t.waitingForApproval)?.waitingForApproval;
    });
    const result = await asPerson(() => vscode.commands.executeCommand<{ status: string }>('tasklane.approve', pending), 'Approve');
    assert.equal(result.status, 'applied', JSON.stringify(result));
    return modelSaw(wanted, 0, r);
  }

  /** No tab shows the file, and what VS Code holds of it is what is on disk (a revert compares against it). */
  const untouched = (file: string) => {
    const uri = vscode.Uri.joinPath(root(), dir, file);
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString());
    assert.equal(tabs.length, 0, `${file} was shown in a tab`);
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    assert.equal(document?.isDirty ?? false, false, `${file} is dirty`);
    if (document) assert.equal(document.getText(), fs.readFileSync(uri.fsPath, 'utf8'));
  };

  it('a new file with a type error: its error reaches the task, though no tab shows it', async () => {
    const seen = await applyAndSee(
      'problems-new-file',
      { name: 'create_file', arguments: { path: `${dir}/fresh.ts`, content: "export const bad: number = 'oops';\n" } },
      /fresh\.ts:1:14: error ts\(2322\)/,
    );
    assert.match(seen, /New problems in the changed files since the edit \(1 error, 0 warnings\)/);
    assert.doesNotMatch(seen, /No language server reported/);
    untouched('fresh.ts');
  });

  it('an edit to a file no tab shows: its new error reaches the task, the error it had before is not blamed', async () => {
    const seen = await applyAndSee(
      'problems-closed-file',
      { name: 'replace_in_file', arguments: { path: `${dir}/closed.ts`, edits: [{ oldText: '= 1;', newText: "= 'one';" }] } },
      /closed\.ts:1:14: error ts\(2322\)/,
    );
    assert.doesNotMatch(seen, /closed\.ts:2:/);
    assert.doesNotMatch(seen, /broken\.ts/);
    untouched('closed.ts');
  });

  it('an edit that breaks a caller in another closed file: the error in the caller reaches the task', async () => {
    const seen = await applyAndSee(
      'problems-caller',
      {
        name: 'replace_in_file',
        arguments: {
          path: `${dir}/lib2.ts`,
          edits: [{ oldText: 'twice(n: number): number {\n  return n * 2;', newText: 'twice(n: string): string {\n  return n + n;' }],
        },
      },
      /caller2\.ts:2:\d+: error ts\(2345\): Argument of type 'number' is not assignable to parameter of type 'string'/,
    );
    assert.match(seen, /New problems in the changed files and the files importing them since the edit/);
    assert.doesNotMatch(seen, /lib2\.ts:\d+:\d+: error/);
    untouched('caller2.ts');
    untouched('lib2.ts');
  });

  it('a file no language server checks: the task is told none reported on it, not that it is clean', async () => {
    await applyAndSee(
      'problems-unchecked',
      { name: 'create_file', arguments: { path: `${dir}/notes.zzz`, content: 'plain words\n' } },
      new RegExp(`No language server reported on ${dir}/notes\\.zzz within 4 s`),
    );
    untouched('notes.zzz');
  });

  it('rename_symbol: the language server rename is a change set that renames every use once approved, and nothing before', async () => {
    const name = `rename-${Date.now().toString(36)}`;
    const r = route('rename-symbol');
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name, instruction: 'Rename circleArea to computeArea', mode: 'simple', actionSets: ['files'] } }] },
      { toolCalls: [{ name: 'rename_symbol', arguments: { path: `${dir}/shapes.ts`, line: 2, symbol: 'circleArea', newName: 'computeArea' } }] },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'renamed' } }] },
    ]);
    // Every file of the sample saved and out of the editors first (the edit before left use.ts in a tab).
    await vscode.workspace.saveAll(false);
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.path.includes(`/${dir}/`));
    await vscode.window.tabGroups.close(tabs);
    const read = (file: string) => fs.readFileSync(path.join(root().fsPath, dir, file), 'utf8');
    const uses = (text: string, word: string) => text.split(word).length - 1;
    const before = { shapes: read('shapes.ts'), use: read('use.ts') };
    await sendMessage(`rename circleArea (${name}) ${r}`);
    const pending = await until('the rename to wait for approval', async () => {
      const { tasks } = (await vscode.commands.executeCommand('tasklane.getState')) as { tasks: Array<{ name: string; waitingForApproval?: string }> };
      return tasks.find((t) => t.name === name && t.waitingForApproval)?.waitingForApproval;
    }).catch(async (error: Error) => {
      // What the task was told instead (the rename's error), to say why.
      const told = (await requestsText(r)).flatMap((t) => /"role":"tool"[^}]*/.exec(t) ?? []);
      throw new Error(`${error.message}; the task was told: ${told.join(' | ')}`);
    });
    assert.deepEqual({ shapes: read('shapes.ts'), use: read('use.ts') }, before, 'nothing is written before the approval');
    const result = await asPerson(() => vscode.commands.executeCommand<{ status: string }>('tasklane.approve', pending), 'Approve');
    assert.equal(result.status, 'applied', JSON.stringify(result));
    const after = { shapes: read('shapes.ts'), use: read('use.ts') };
    assert.equal(uses(after.shapes, 'circleArea') + uses(after.use, 'circleArea'), 0, JSON.stringify(after));
    assert.equal(uses(after.shapes, 'computeArea'), uses(before.shapes, 'circleArea'));
    assert.equal(uses(after.use, 'computeArea'), uses(before.use, 'circleArea'));
    assert.equal(after.use, before.use.replace(/circleArea/g, 'computeArea'), 'only the name changed');
  });
});
