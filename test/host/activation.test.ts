import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { until } from '../support/poll';
import { TASKLANE_ID } from './support/tasklane';
import type { TasklaneApi } from './support/tasklane';

// Tasklane is activated only where it has work (package.json `activationEvents`, docs/ARCHITECTURE.md
// "Activation"): its views, its commands, its URI handler, and workspaces with `.tasklane/` or
// `.vscode/mcp.json`. The host tier's workspace is the sample workspace, which has neither, and this
// suite's file name sorts first, so it sees the window as a person opening that folder would.
describe('activation: loaded only where Tasklane has work', () => {
  it('a folder without .tasklane/ or mcp.json loads nothing of Tasklane until its view opens', async () => {
    const extension = vscode.extensions.getExtension<TasklaneApi>(TASKLANE_ID);
    assert.ok(extension, `${TASKLANE_ID} is not installed`);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(folder, 'no workspace folder is open');
    assert.equal(fs.existsSync(path.join(folder, '.tasklane')), false, 'the sample workspace must not hold .tasklane/ for this test');

    const mainBundle = path.join(extension.extensionPath, 'dist', 'main.js');
    const loaded = () => Object.keys(require.cache).some((file) => path.resolve(file) === mainBundle);
    // The host runner runs these suites from its own `onStartupFinished` activation: that event has
    // fired, and VS Code activates every extension listening for it in the same pass. So Tasklane,
    // had it still listened for it (as it did), would be active by now; it must not be, and its
    // 1 MB composition root must not be in memory.
    assert.equal(extension.isActive, false, 'Tasklane was activated in a window with no Tasklane work');
    assert.equal(loaded(), false, 'dist/main.js was loaded in a window with no Tasklane work');

    // Opening its view is what a person does first: that activates it and loads the composition root.
    await vscode.commands.executeCommand('tasklane.sidebar.focus');
    await until('Tasklane to activate when its view opens', () => extension.isActive);
    await extension.exports.ready;
    assert.equal(loaded(), true, 'the view opened but dist/main.js is not loaded');
  });
});
