import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateTasklane, storageUriOf } from './support/tasklane';

// The host tier's own health check: if these fail, every other host suite's result is suspect.
describe('host smoke: a real VS Code extension host', () => {
  it('runs inside VS Code 1.139.x, not a stub', () => {
    assert.match(vscode.version, /^1\.139\.\d+$/);
    // A stub `vscode` module would not have a live workspace folder open on the sample workspace.
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder is open');
    assert.equal(path.basename(folder.uri.fsPath), 'workspace');
  });

  it("activates Tasklane with its storage under the run's workspaceStorage", async () => {
    const { extension, api } = await activateTasklane();
    assert.equal(extension.isActive, true);
    const storage = storageUriOf(api);
    assert.ok(storage, 'Tasklane reported no storageUri although a folder is open');
    const userDataDir = process.env.TASKLANE_USER_DATA_DIR;
    assert.ok(userDataDir, 'TASKLANE_USER_DATA_DIR is not set by the harness');
    const workspaceStorage = path.join(userDataDir, 'User', 'workspaceStorage') + path.sep;
    assert.ok(storage.fsPath.startsWith(workspaceStorage), `${storage.fsPath} is not under ${workspaceStorage}`);
    assert.equal(path.basename(storage.fsPath), 'tasklane.tasklane');
  });

  // package.json's extensionKind ["workspace"] (README "Where it runs"): code-server serves the
  // workbench to a browser and runs extensions in its remote extension host, next to the files,
  // which is where Tasklane runs in Remote-SSH, WSL and dev containers too.
  it('runs as a workspace extension in the remote extension host, next to the files', async () => {
    const { extension } = await activateTasklane();
    assert.equal(extension.extensionKind, vscode.ExtensionKind.Workspace);
    // A remote window (code-server names it by its authority) whose workbench is a web page...
    assert.ok(vscode.env.remoteName, 'not a remote window');
    assert.equal(vscode.env.uiKind, vscode.UIKind.Web);
    // ...while the extension host that runs Tasklane reads the workspace's files from its own disk.
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder && fs.statSync(folder.uri.fsPath).isDirectory());
  });

  it("writes and reads back a file in Tasklane's storage through vscode.workspace.fs", async () => {
    const { api } = await activateTasklane();
    const storage = storageUriOf(api);
    assert.ok(storage);
    const file = vscode.Uri.joinPath(storage, 'host-smoke', `probe-${Date.now()}.txt`);
    const content = `probe ${Math.random()}`;
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(storage, 'host-smoke'));
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(content));
    const read = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
    assert.equal(read, content);
    const stat = await vscode.workspace.fs.stat(file);
    assert.equal(stat.size, Buffer.byteLength(content));
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(storage, 'host-smoke'), { recursive: true });
  });
});
