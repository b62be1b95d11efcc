import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readOrNull } from '../support/files';
import { activateTasklane, modelSaw, quiesce, requestsText, resetModel, route, scriptModel, until, useScriptedModel } from './support/tasklane';
import { asPerson, sendMessage } from './support/asPerson';

// One reading of the workspace: with an unsaved change open (auto save off), what the model reads
// (read_file, search_text) is the text VS Code shows, and a replace_in_file written from that text
// is proposed (not stale) and applied against the same text. Before, read_file read the saved
// file on disk while the proposal read the editor's buffer: the model's old_text came from
// another text than the one it was matched against.
interface TaskState {
  id: string;
  name: string;
  status: string;
  waitingForUser: boolean;
  waitingForApproval?: string;
}

const tasks = async () => ((await vscode.commands.executeCommand('tasklane.getState')) as { tasks: TaskState[] }).tasks;
const global = vscode.ConfigurationTarget.Global;

describe('host: the agent reads what the editor shows (unsaved changes included)', function () {
  this.timeout(180_000);
  const root = () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('the host tier opens the sample workspace; no folder is open');
    return folder.uri.fsPath;
  };
  const file = 'src/greet.js';
  let saved: string;
  let document: vscode.TextDocument | undefined;

  before(async () => {
    // The browser workbench may save on its own: keep the edit unsaved for the whole test.
    await vscode.workspace.getConfiguration('files').update('autoSave', 'off', global);
    await activateTasklane();
    await quiesce();
    await useScriptedModel();
    saved = readOrNull(path.join(root(), file)) ?? assert.fail(`${file} is missing from the sample workspace`);
  });
  after(async () => {
    // Closing a dirty editor would ask to save (and wait for ever): revert and close every dirty one
    // first, this suite's and any other's (an untitled document a command opened, say).
    for (const dirty of vscode.workspace.textDocuments.filter((d) => d.isDirty)) {
      await vscode.window.showTextDocument(dirty);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.writeFileSync(path.join(root(), file), saved);
    await vscode.workspace.getConfiguration('files').update('autoSave', undefined, global);
    await vscode.workspace.getConfiguration('tasklane.model').update('provider', undefined, global);
    await resetModel();
  });

  it('read_file and search_text carry the unsaved text; a replace_in_file from it is proposed, not stale, and applied', async () => {
    const marker = `unsaved-${Date.now().toString(36)}`;
    const unsavedLine = `const note = '${marker}';`;
    const uri = vscode.Uri.file(path.join(root(), file));
    document = await vscode.workspace.openTextDocument(uri);
    const opened = document;
    await vscode.window.showTextDocument(opened);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(1, 0), `${unsavedLine}\n`);
    assert.ok(await vscode.workspace.applyEdit(edit), 'VS Code refused the edit');
    assert.ok(opened.isDirty, 'the edit should stay unsaved');
    assert.equal(readOrNull(uri.fsPath), saved, 'the disk should still hold the saved text');

    await resetModel();
    const name = `unsaved-buffer-${marker}`;
    const routed = (await tasks()).some((t) => t.status === 'running' || t.status === 'paused');
    const r = route('unsaved-buffer');
    await scriptModel(r, [
      ...(routed ? [{ toolCalls: [{ name: 'route_message', arguments: { decision: 'new', reason: 'a new request' } }] }] : []),
      { toolCalls: [{ name: 'task_start', arguments: { name, instruction: 'Rename the note', mode: 'simple' } }] },
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: file } },
          { name: 'search_text', arguments: { query: marker } },
        ],
      },
      { toolCalls: [{ name: 'replace_in_file', arguments: { path: file, edits: [{ oldText: unsavedLine, newText: `const note = '${marker}-renamed';` }] } }] },
    ]);
    await sendMessage(`please rename the note (${marker}) ${r}`);

    const task = await until(`task ${name} to wait for approval`, async () => {
      assert.ok(opened.isDirty, 'the document was saved behind the test (auto save?)');
      const found = (await tasks()).find((t) => t.name === name);
      return found && (found.waitingForApproval || found.waitingForUser) ? found : undefined;
    });
    // The request after the reads carries their results back to the model.
    // search_text groups hits under their file: the path, then `  2: <line>` (JSON-escaped newlines here).
    const afterReads = (await requestsText(r)).find((t) => t.includes(`${file}\\n  1- 'use strict';\\n  2: ${unsavedLine}`));
    assert.ok(afterReads, `the model never got search_text's hit at ${file}:2 for the unsaved line`);
    assert.ok(afterReads.includes(`'use strict';\\n${unsavedLine}`), "read_file's result is not the unsaved editor text");
    assert.ok(task.waitingForApproval, `the replace_in_file written from the unsaved text was not proposed: ${(await requestsText(r)).at(-1)?.slice(-600)}`);

    const result = await asPerson(() => vscode.commands.executeCommand<{ status: string }>('tasklane.approve', task.waitingForApproval), 'Approve');
    assert.equal(result.status, 'applied', `approving over the unsaved buffer (not stale): ${JSON.stringify(result)}`);
    assert.ok(opened.getText().includes(`${marker}-renamed`), 'the applied edit is not in the editor');
    assert.equal(
      readOrNull(uri.fsPath),
      saved.replace("'use strict';\n", `'use strict';\nconst note = '${marker}-renamed';\n`),
      'the disk should hold the unsaved text with the edit',
    );
    assert.equal(opened.isDirty, false, 'the document should be saved after the apply');
    await modelSaw(/approved and applied: src\/greet\.js/);
  });
});
