import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateTasklane, quiesce, renderedReport, route, scriptModel, useScriptedModel, waitForState } from './support/tasklane';
import { sendMessage } from './support/asPerson';

interface Hit {
  kind: string;
  sessionId: string;
  archived: boolean;
}

// Recall inside VS Code: a finished conversation is archived, found again by Search History,
// opened a page of events at a time, and exported as JSONL and Markdown.
describe('host: history search, open and export', function () {
  this.timeout(90_000);
  const storage = () => vscode.workspace.getConfiguration('tasklane.storage');

  before(async () => {
    await activateTasklane();
    await quiesce();
    await useScriptedModel();
  });
  after(async () => storage().update('sessionDays', undefined, vscode.ConfigurationTarget.Global));

  it('search finds an archived session, opening it pages its events, export writes both files', async () => {
    const word = `quetzal${Date.now()}`;
    const r = route('history');
    await scriptModel(r, [{ toolCalls: [{ name: 'send_message', arguments: { text: `The ${word} config lives in config/${word}.json.` } }] }]);
    const sessionId = await sendMessage(`Where is the ${word} config? ${r}`);
    await waitForState((s) =>
      (s as unknown as { sessions: Array<{ id: string; status: string; messages: Array<{ role: string }> }> }).sessions.some(
        (x) => x.id === sessionId && x.status === 'idle' && x.messages.some((m) => m.role === 'assistant'),
      ),
    );
    await quiesce();

    // Archive idle sessions at once (the default is after 7 idle days).
    await storage().update('sessionDays', 0, vscode.ConfigurationTarget.Global);
    const pass = (await vscode.commands.executeCommand('tasklane.archiveNow')) as { moved: number };
    assert.ok(pass.moved >= 1, `nothing was archived: ${JSON.stringify(pass)}`);
    const state = (await vscode.commands.executeCommand('tasklane.getState')) as { sessions: Array<{ id: string }> };
    assert.equal(
      state.sessions.some((s) => s.id === sessionId),
      false,
      'the archived session is still in the hot list',
    );

    const hits = (await vscode.commands.executeCommand('tasklane.searchHistory', word.toUpperCase())) as Hit[];
    assert.deepEqual(
      hits.filter((h) => h.sessionId === sessionId).map((h) => [h.kind, h.archived]),
      [['session', true]],
    );

    const opened = (await vscode.commands.executeCommand('tasklane.openHistorySession', sessionId)) as {
      archived: boolean;
      events: Array<{ seq: number; kind: string; data: { text?: string } }>;
      hasMore: boolean;
    };
    assert.equal(opened.archived, true);
    assert.equal(opened.hasMore, false);
    assert.ok(opened.events.some((e) => e.kind === 'message' && e.data.text === `Where is the ${word} config? ${r}`));
    assert.ok(opened.events.some((e) => e.kind === 'message' && String(e.data.text).includes(`config/${word}.json`)));
    const older = (await vscode.commands.executeCommand('tasklane.openHistorySession', sessionId, opened.events[1].seq)) as { events: Array<{ seq: number }> };
    assert.deepEqual(
      older.events.map((e) => e.seq),
      [opened.events[0].seq],
      'the page before seq 2 is the first event',
    );
    // Rendered (the Markdown preview), of a read-only document.
    const page = await renderedReport('tasklane-history');
    assert.match(page?.getText() ?? '', /\(archived\)/);
    // A view, not a draft: a read-only document of Tasklane's own that closing never asks to save.
    assert.equal(page?.uri.scheme, 'tasklane-history');
    assert.equal(page?.isUntitled, false);
    assert.equal(page?.isDirty, false);

    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-export-'));
    const result = (await vscode.commands.executeCommand('tasklane.exportSession', sessionId, out)) as { jsonl: string; markdown: string };
    const lines = fs
      .readFileSync(result.jsonl, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    assert.equal(lines[0].type, 'session');
    assert.ok(lines.filter((l) => l.type === 'event').length >= 2);
    assert.equal(lines.at(-1)!.type, 'usage');
    const md = fs.readFileSync(result.markdown, 'utf8');
    assert.ok(md.includes(`Where is the ${word} config?`) && md.includes('## Usage'), md.slice(0, 500));
    fs.rmSync(out, { recursive: true, force: true });
  });
});
