import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { openCliEngine } from '../../src/cli/cliEngine';
import { codeActions } from '../../src/core/actions/codeActions';
import type { CodeIntelPort } from '../../src/core/codeIntel/codeIntelPort';
import { describeEngine } from '../../src/core/engineSurface';
import type { EngineSurface } from '../../src/core/engineSurface';
import { silentLogger } from '../../src/core/ports';
import { Redactor } from '../../src/core/security/redact';
import { activateTasklane, quiesce } from './support/tasklane';

// One engine graph, two sets of adapters: the command line's engine, built here beside the one
// VS Code runs, exposes the same services and offers each kind of turn the same tools, except for
// what only the editor has (its language features, the chore schedule, the person's MCP servers).
describe('host: the VS Code host and the command line build the same engine', function () {
  this.timeout(60_000);

  it('same services and the same tools per kind of turn; the differences are exactly the editor-only parts', async () => {
    const { extension } = await activateTasklane();
    await quiesce();
    const { engine: inEditor } = (await vscode.commands.executeCommand('tasklane.getState')) as { engine: EngineSurface };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-one-engine-'));
    const { engine } = await openCliEngine({
      workspace: dir,
      storeDir: path.join(dir, '.store'),
      model: async () => Promise.reject(new Error('no model call in this test')),
      secrets: () => undefined,
      redactor: new Redactor(),
      logger: silentLogger,
      wasmPath: path.join(extension.extensionPath, 'dist', 'sql-wasm.wasm'),
      skillDirs: [],
      env: {},
      maxCommandMs: 1000,
    });
    try {
      await engine.agent.whenReady();
      const onCli = describeEngine(engine);
      // The chore scheduler keeps cron schedules across a session; the command line fires once.
      assert.deepEqual(onCli.services, ['changeSets', 'chores', 'commands', 'mcp']);
      assert.deepEqual(inEditor.services, ['changeSets', 'choreScheduler', 'chores', 'commands', 'mcp']);
      assert.deepEqual(onCli.conversationTools, inEditor.conversationTools);
      // The language features' actions, and the rename they make (an edit action).
      const editorOnly = new Set([...codeActions({} as CodeIntelPort).map((a) => a.name), 'rename_symbol']);
      const shared = inEditor.choreTaskTools.filter((name) => !editorOnly.has(name) && !name.startsWith('mcp_'));
      assert.deepEqual(onCli.choreTaskTools, shared, 'the same tools, in the same order (a stable prompt prefix on both)');
      // The comparison is not of two empty lists: edits, commands and reads are there.
      for (const name of ['write_file', 'run_command', 'read_file', 'find_files', 'search_history', 'read_git', 'task_end'])
        assert.ok(onCli.choreTaskTools.includes(name), name);
      assert.ok(inEditor.choreTaskTools.includes('get_diagnostics'), 'VS Code adds its language features');
    } finally {
      await engine.shutdown();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
