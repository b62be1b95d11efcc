import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateTasklane, quiesce, requestsText, resetModel, scriptModel, until, useScriptedModel } from './support/tasklane';

// Chores inside a real extension host: chores.yaml loaded through the FileSystemWatcher, a file
// burst coalesced into one run, a real VS Code task exiting non-zero, and a chore's edit proposal
// waiting for review instead of being written.

interface ChoreRun {
  id: string;
  status: string;
  reason?: string;
}
interface ChoreState {
  id: string;
  enabled: boolean;
  consent?: 'needed' | 'given';
  review?: { definitionHash: string };
  problem?: string;
  runs: ChoreRun[];
}
interface State {
  chores: ChoreState[];
  tasks: Array<{ id: string; source: string; status: string; waitingForApproval?: string }>;
}

const root = () => vscode.workspace.workspaceFolders![0].uri;
const write = (rel: string, text: string) => vscode.workspace.fs.writeFile(vscode.Uri.joinPath(root(), rel), new TextEncoder().encode(text));
const state = async () => (await vscode.commands.executeCommand('tasklane.getState')) as State;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the state snapshot until `probe` finds something; a timeout names the chores as last seen. */
function untilState<T>(what: string, probe: (s: State) => T | undefined | false, timeoutMs = 30_000): Promise<T> {
  let last: State | undefined;
  return until(
    what,
    async () => probe((last = await state())),
    timeoutMs,
    () => `chores: ${JSON.stringify(last?.chores).slice(0, 1500)}`,
  );
}

const chore = (s: State, id: string) => s.chores.find((c) => c.id === id);
const endStep = (output: Record<string, unknown>) => ({ toolCalls: [{ name: 'task_end', arguments: { summary: 'done', output } }] });

describe('host: chores', function () {
  this.timeout(90_000);

  before(async () => {
    await activateTasklane();
    // Live tasks left by another suite would send every new message through the router model.
    await quiesce();
    await resetModel();
    await useScriptedModel();
    await write(
      '.tasklane/chores.yaml',
      [
        'chores:',
        '  - id: notes-digest',
        '    name: Notes digest',
        '    trigger: { files: ["notes/**"], debounceMs: 400 }',
        '    prompt: Summarise the notes.',
        '    successWhen: "status = \'done\'"',
        '  - id: failed-build',
        '    name: Failed build',
        '    trigger: { task: { name: failing-build, when: "exitCode != 0" } }',
        '    prompt: The build failed; diagnose it.',
        '  - id: fixer',
        '    name: Fixer',
        '    trigger: { cron: "0 3 * * *" }',
        '    prompt: Fix the typo in README.md.',
        '    actionSets: [files]',
        '    budget: { maxSeconds: 600 }',
        '  - id: broken',
        '    name: Broken',
        '    trigger: { cron: "not a cron" }',
        '    prompt: never runs',
      ].join('\n') + '\n',
    );
    const loaded = await untilState('chores.yaml to load', (s) => chore(s, 'fixer') && s);
    // Written by the test, not with New Chore: each waits for the person's Enable (the consent suite tests that).
    for (const c of loaded.chores) {
      if (c.consent === 'needed' && c.review) await vscode.commands.executeCommand('tasklane.enableChore', c.id, c.review.definitionHash);
    }
    await untilState('the chores to be enabled', (s) => ['notes-digest', 'failed-build', 'fixer'].every((id) => chore(s, id)?.enabled));
  });

  after(async () => {
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(root(), '.tasklane/chores.yaml')).then(undefined, () => undefined);
    await quiesce();
    await vscode.workspace.getConfiguration('tasklane.model').update('provider', 'auto', vscode.ConfigurationTarget.Global);
  });

  it('a bad chore is disabled with a line-precise diagnostic; the others are enabled', async () => {
    const s = await state();
    assert.equal(chore(s, 'broken')?.enabled, false);
    assert.match(chore(s, 'broken')?.problem ?? '', /line 19: .*cron/);
    assert.equal(chore(s, 'notes-digest')?.enabled, true);
    const diagnostics = vscode.languages.getDiagnostics(vscode.Uri.joinPath(root(), '.tasklane/chores.yaml'));
    const cron = diagnostics.find((d) => /not a valid cron/.test(d.message));
    assert.ok(cron, `diagnostics: ${diagnostics.map((d) => d.message).join(' | ')}`);
    assert.equal(cron.range.start.line, 18, 'zero-based line of `trigger: { cron: "not a cron" }`');
  });

  it('a file-glob chore fires once for a burst of saves', async () => {
    await scriptModel('Summarise the notes.', [endStep({ status: 'done' })]);
    for (let i = 0; i < 6; i++) {
      await write(`notes/n${i % 3}.md`, `note ${i}\n`);
      await sleep(40);
    }
    const runs = await untilState('the notes run to end', (s) => {
      const r = chore(s, 'notes-digest')?.runs ?? [];
      return r.length && r.every((x) => x.status !== 'running') ? r : undefined;
    });
    await sleep(1500); // longer than the debounce: a second run would have started by now
    const after = chore(await state(), 'notes-digest')!.runs;
    assert.equal(after.length, 1, JSON.stringify(after));
    assert.equal(runs[0].status, 'succeeded', runs[0].reason);
    // The trigger context reaches the model: the run's first request names every changed file.
    const first = (await requestsText('Summarise the notes.'))[0];
    assert.ok(first, 'the notes run reached the model');
    for (const file of ['notes/n0.md', 'notes/n1.md', 'notes/n2.md']) assert.ok(first.includes(file), `${file} in the first request`);
  });

  it('a task chore fires when a real VS Code task exits non-zero', async () => {
    await scriptModel('The build failed; diagnose it.', [endStep({ status: 'done' })]);
    const task = (await vscode.tasks.fetchTasks()).find((t) => t.name === 'failing-build');
    assert.ok(task, 'sample-workspace defines failing-build');
    await vscode.tasks.executeTask(task);
    const run = await untilState('the failed-build run', (s) => chore(s, 'failed-build')?.runs.find((r) => r.status !== 'running'));
    assert.equal(run.status, 'succeeded', run.reason);
  });

  it("a chore's edit proposal waits in the review inbox and is not written", async () => {
    const before = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root(), 'README.md')));
    await scriptModel('Fix the typo in README.md.', [
      { toolCalls: [{ name: 'write_file', arguments: { path: 'README.md', content: 'rewritten by a chore\n' } }] },
    ]);
    await vscode.commands.executeCommand('tasklane.runChoreNow', 'fixer');
    const waiting = await untilState('the fixer task to wait for approval', (s) => s.tasks.find((t) => t.source === 'chore:fixer' && t.waitingForApproval));
    assert.ok(waiting.waitingForApproval);
    await sleep(500);
    const now = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root(), 'README.md')));
    assert.equal(now, before, 'nothing written unattended');
    assert.equal(chore(await state(), 'fixer')?.runs[0]?.status, 'running', 'the run waits (until maxSeconds) for the review');
  });
});
