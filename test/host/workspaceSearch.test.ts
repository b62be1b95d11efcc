import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import { findRipgrepOnPath } from '../../src/core/approval/paths/ripgrep';
import { vscodeRipgrep } from '../../src/host/workspaceFiles';
import { activateTasklane, modelSaw, quiesce, resetModel, route, scriptModel, useScriptedModel } from './support/tasklane';
import { sendMessage } from './support/asPerson';

// The read actions in a real extension host: the person's own `search.exclude` and `files.exclude`
// settings hide from the agent what they hide in Search and the Explorer, and the ripgrep that
// runs is the one VS Code ships, not whatever else the machine has.
describe('host: the read actions follow the editor settings and use VS Code’s ripgrep', function () {
  this.timeout(180_000);
  const dir = `excl-${Date.now().toString(36)}`;
  const marker = `EXCLUDE-MARK-${Date.now().toString(36)}`;
  const folder = () => {
    const found = vscode.workspace.workspaceFolders?.[0];
    if (!found) throw new Error('the host tier opens the sample workspace; no folder is open');
    return found;
  };

  before(async () => {
    await activateTasklane();
    await quiesce();
    await useScriptedModel();
    for (const sub of ['hidden', 'gen', 'kept']) {
      fs.mkdirSync(path.join(folder().uri.fsPath, dir, sub), { recursive: true });
      fs.writeFileSync(path.join(folder().uri.fsPath, dir, sub, `${sub}.txt`), `${marker} in ${sub}\n`);
    }
  });
  after(async () => {
    await setExcludes(undefined, undefined);
    fs.rmSync(path.join(folder().uri.fsPath, dir), { recursive: true, force: true });
    await resetModel();
  });

  /** The workspace's own settings, as the person would write them in .vscode/settings.json. */
  async function setExcludes(search: Record<string, boolean> | undefined, files: Record<string, boolean> | undefined): Promise<void> {
    await vscode.workspace.getConfiguration('search', folder().uri).update('exclude', search, vscode.ConfigurationTarget.Workspace);
    await vscode.workspace.getConfiguration('files', folder().uri).update('exclude', files, vscode.ConfigurationTarget.Workspace);
  }

  /** One task's search_text, find_files and list_files over the sample folder: the three tool results. */
  async function look(label: string): Promise<string[]> {
    const name = `${label}-${Date.now().toString(36)}`;
    const r = route(label);
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name, instruction: 'Look around', mode: 'simple' } }] },
      {
        toolCalls: [
          { name: 'search_text', arguments: { query: marker, limit: 50 } },
          { name: 'find_files', arguments: { glob: `${dir}/**/*.txt` } },
          { name: 'list_files', arguments: { dir, recursive: true } },
        ],
      },
      { toolCalls: [{ name: 'task_end', arguments: { summary: 'looked' } }] },
    ]);
    await sendMessage(`look around (${name}) ${r}`);
    const seen = await modelSaw(/"role":"tool"/, 0, r);
    const tools = (JSON.parse(seen) as { messages: Array<{ role: string; content: string }> }).messages.filter((m) => m.role === 'tool');
    assert.equal(tools.length, 3, JSON.stringify(tools));
    return tools.map((m) => m.content);
  }

  it('search.exclude and files.exclude hide their folders from search_text, find_files and list_files', async () => {
    // Control: with no setting, every folder is found, so what follows is the settings' doing.
    for (const result of await look('excludes-off')) for (const sub of ['hidden', 'gen', 'kept']) assert.match(result, new RegExp(`${sub}\\.txt`), result);
    await setExcludes({ [`**/${dir}/hidden`]: true }, { [`**/${dir}/gen`]: true });
    const results = await look('excludes-on');
    for (const result of results) {
      assert.match(result, /kept\.txt/, result);
      assert.doesNotMatch(result, /hidden\.txt|gen\.txt/, result);
    }
    // Nothing was cut short: "no more" is a complete answer, not a bound that stopped early.
    assert.doesNotMatch(results.join('\n'), /stopped|narrow/i);
  });

  it('the ripgrep that runs is VS Code’s own, though the machine has another on its PATH', async () => {
    const own = await vscodeRipgrep();
    assert.ok(own, 'no ripgrep found at all');
    assert.ok(own.startsWith(vscode.env.appRoot + path.sep), `${own} is not below VS Code's ${vscode.env.appRoot}`);
    const { stdout } = await promisify(execFile)(own, ['--version']);
    assert.match(stdout, /^ripgrep \d+\.\d+/);
    // Where the PATH has one too (the test machines install Debian's), VS Code's is still the one chosen.
    const onPath = await findRipgrepOnPath();
    if (onPath) assert.notEqual(own, onPath);
  });
});
