import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateTasklane, modelSaw, quiesce, requestsText, resetModel, route, scriptModel, until, useScriptedModel } from './support/tasklane';
import { sendMessage } from './support/asPerson';

// Finding 2 of the December review, in a real extension host on a trusted folder: a repository
// can ship `docs/assets -> ../../..`; VS Code's own file search follows links by default. Neither
// search_text nor list_files may show anything behind a link that leads out of the workspace.
describe('host: a symlinked folder pointing outside is invisible to search and listing', function () {
  this.timeout(180_000);
  let outside: string;
  let linkDir: string;
  let linkFile: string;
  // The searches ask for the prefix only, so the random tail appears in a request only if a result carried it.
  const secretTail = Math.random().toString(36).slice(2, 12);
  const marker = `OUTSIDE-SECRET-${secretTail}`;
  const insideMarker = `INSIDE-MARK-${Date.now().toString(36)}`;
  const root = () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) throw new Error('the host tier opens the sample workspace; no folder is open');
    return folder.uri.fsPath;
  };

  before(async () => {
    await activateTasklane();
    await quiesce();
    await useScriptedModel();
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-home-'));
    fs.mkdirSync(path.join(outside, '.aws'), { recursive: true });
    fs.writeFileSync(path.join(outside, '.aws', 'credentials'), `aws_access_key_id = ${marker}\n`);
    fs.writeFileSync(path.join(outside, 'notes.txt'), `${marker} in notes\n`);
    linkDir = `linked-home-${Date.now().toString(36)}`;
    linkFile = `linked-file-${Date.now().toString(36)}.txt`;
    fs.symlinkSync(outside, path.join(root(), linkDir));
    fs.symlinkSync(path.join(outside, 'notes.txt'), path.join(root(), linkFile));
    fs.writeFileSync(path.join(root(), `inside-${insideMarker}.txt`), `${insideMarker} ${marker.slice(0, 8)}\n`);
  });
  after(async () => {
    fs.rmSync(path.join(root(), linkDir), { force: true });
    fs.rmSync(path.join(root(), linkFile), { force: true });
    fs.rmSync(path.join(root(), `inside-${insideMarker}.txt`), { force: true });
    fs.rmSync(outside, { recursive: true, force: true });
    await resetModel();
  });

  it('search_text and list_files return nothing from behind the link; inside files still show', async () => {
    const name = `read-guard-${Date.now().toString(36)}`;
    const r = route('read-guard');
    await scriptModel(r, [
      { toolCalls: [{ name: 'task_start', arguments: { name, instruction: 'Look around', mode: 'simple' } }] },
      {
        toolCalls: [
          { name: 'search_text', arguments: { query: 'OUTSIDE-SECRET', limit: 500 } },
          { name: 'search_text', arguments: { query: 'OUTSIDE-SECRET', include: `${linkDir}/**`, limit: 500 } },
          { name: 'search_text', arguments: { query: 'OUTSIDE-SECRET-[a-z0-9]+', isRegex: true, limit: 500 } },
          { name: 'search_text', arguments: { query: 'aws_access_key_id', limit: 500 } },
          { name: 'search_text', arguments: { query: insideMarker, limit: 500 } },
          { name: 'list_files', arguments: { dir: '.', recursive: true, limit: 1000 } },
          { name: 'list_files', arguments: { dir: '.' } },
          { name: 'list_files', arguments: { dir: linkDir, recursive: true } },
          { name: 'read_file', arguments: { path: `${linkDir}/.aws/credentials` } },
        ],
      },
    ]);
    const before = (await requestsText()).length;
    await sendMessage(`look around (${name}) ${r}`);
    // The request after the tool calls carries their results back to the model.
    const seen = await modelSaw(new RegExp(`inside-${insideMarker}\\.txt`), before);
    await until('the turn with the results', async () =>
      (await requestsText()).slice(before).some((t) => t.includes(insideMarker) && t.includes('resolves outside the workspace')),
    );
    const all = (await requestsText()).slice(before).join('\n');
    assert.ok(!all.includes(secretTail), 'a line from outside the workspace reached the model');
    assert.ok(!all.includes('.aws/credentials') || /\.aws\/credentials resolves outside the workspace/.test(all), 'the credentials file was listed');
    assert.ok(!new RegExp(`${linkFile}`).test(seen), 'the file link out was listed');
    assert.match(all, new RegExp(`${linkDir} resolves outside the workspace|${linkDir}.*outside the workspace`), 'listing the link itself is refused');
  });
});
