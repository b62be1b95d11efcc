import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as vscode from 'vscode';
import { activateTasklane, quiesce, requestsText, resetModel, scriptModel, until, useScriptedModel, writeChoresFile } from './support/tasklane';
import { asPerson } from './support/asPerson';
import { webhookExample } from '../support/webhookExamples';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// Issue #14 in the real workbench: the diagnostics and git-HEAD triggers fire once per burst and
// tell the run what happened, and the workspace's daily cap stops a run, pauses its chore, and
// Resume lets it run again.

interface ChoreRun {
  id: string;
  status: string;
  reason?: string;
  usage?: { cost: number };
}
interface ChoreState {
  id: string;
  enabled: boolean;
  consent?: 'needed' | 'given';
  review?: { definitionHash: string };
  problem?: string;
  paused?: string;
  runs: ChoreRun[];
}
interface State {
  chores: ChoreState[];
}

const root = () => vscode.workspace.workspaceFolders![0].uri;
const state = async () => (await vscode.commands.executeCommand('tasklane.getState')) as State;
const chore = (s: State, id: string) => s.chores.find((c) => c.id === id);
const endStep = (extra: Record<string, unknown> = {}) => ({ ...extra, toolCalls: [{ name: 'task_end', arguments: { summary: 'done', output: {} } }] });
const chores = vscode.workspace.getConfiguration('tasklane.chores');

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

/** The chore's history once it holds `count` entries and none is still running. */
const settledRuns = (id: string, count: number, timeoutMs = 30_000) =>
  untilState(
    `${count} settled run(s) of ${id}`,
    (s) => {
      const runs = chore(s, id)?.runs ?? [];
      return runs.length >= count && runs.every((r) => r.status !== 'running') ? runs : undefined;
    },
    timeoutMs,
  );

/** The model requests of a chore's runs, told apart by the marker in its prompt (which routes its answers too). */
const requestsOf = (marker: string) => requestsText(marker);

/** Resolves at the next diagnostics change the extension host sees: each set below is its own event. */
function nextDiagnosticsChange(): Promise<void> {
  return new Promise((resolve) => {
    const listener = vscode.languages.onDidChangeDiagnostics(() => {
      listener.dispose();
      resolve();
    });
  });
}

const DIAG = 'DIAG-CHORE: fix the errors that appeared.';
const SPEND = 'SPEND-CHORE: tidy something.';
const HEAD = 'HEAD-CHORE: review the new commits.';
const REPLAY = 'REPLAY-CHORE: triage the issue.';
const IDS = ['diag-watch', 'spender', 'head-watch', 'issue-triage'];

describe('host: chore triggers and caps', function () {
  this.timeout(180_000);
  const collection = vscode.languages.createDiagnosticCollection('test');

  before(async () => {
    await activateTasklane();
    await quiesce();
    await resetModel();
    await useScriptedModel();
    // The other chores here call the scripted model, which has no price: were it charged at the
    // conservative rate, their runs would spend the daily cap before the spender test starts. Priced
    // as a free local model, only the spender's gpt-4o call (table price, kept exactly) costs.
    const free = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    await vscode.workspace
      .getConfiguration('tasklane.model')
      .update('prices', { 'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 2.5 }, '*': free }, vscode.ConfigurationTarget.Global);
    const yaml =
      [
        'chores:',
        '  - id: diag-watch',
        '    name: Diagnostics watch',
        '    trigger: { diagnostics: { files: "src/**" }, debounceMs: 500 }',
        `    prompt: "${DIAG}"`,
        '  - id: spender',
        '    name: Spender',
        '    trigger: { cron: "0 3 * * *" }',
        `    prompt: "${SPEND}"`,
        '  - id: head-watch',
        '    name: HEAD watch',
        // Longer than the git extension takes to report the second commit once asked to look (repository.status()).
        '    trigger: { git: head, debounceMs: 5000 }',
        `    prompt: "${HEAD}"`,
        '  - id: issue-triage',
        '    name: Issue triage',
        '    trigger: { github: { event: issues, types: [opened] } }',
        `    prompt: "${REPLAY}"`,
        '    outputs: { labels: { allowed: [bug, question], max: 1 } }',
      ].join('\n') + '\n';
    const loaded = await writeChoresFile<State>(yaml, (s) => IDS.every((id) => chore(s, id)?.review));
    for (const c of loaded.chores) {
      if (c.consent === 'needed' && c.review)
        await asPerson(() => vscode.commands.executeCommand('tasklane.enableChore', c.id, c.review!.definitionHash), 'Enable');
    }
    await untilState('the chores to be enabled', (s) => IDS.every((id) => chore(s, id)?.enabled));
  });

  after(async () => {
    collection.dispose();
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(root(), '.tasklane/chores.yaml')).then(undefined, () => undefined);
    await chores.update('maxCostUsdPerDay', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('tasklane.model').update('prices', undefined, vscode.ConfigurationTarget.Global);
    await quiesce();
    await vscode.workspace.getConfiguration('tasklane.model').update('provider', 'auto', vscode.ConfigurationTarget.Global);
  });

  it('Run now on a chore that runs on CI replays a recorded event: the model gets it as CI would; an event that does not fire it is refused', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-replay-'));
    const opened = webhookExample('issues', (e) => e.action === 'opened') as { issue: { title: string } };
    const openedFile = path.join(dir, 'issue-opened.json');
    fs.writeFileSync(openedFile, JSON.stringify(opened));
    const comment = path.join(dir, 'comment.json');
    fs.writeFileSync(comment, JSON.stringify(webhookExample('issue_comment', (e) => e.action === 'created')));

    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('tasklane.runChoreNow', 'issue-triage', comment)),
      /does not run: this event does not fire "issue-triage": the event is issue_comment; this chore fires on issues/,
    );
    await scriptModel(REPLAY, [{ toolCalls: [{ name: 'task_end', arguments: { summary: 'labelled', output: { labels: ['bug'] } } }] }]);
    await vscode.commands.executeCommand('tasklane.runChoreNow', 'issue-triage', openedFile);
    const [run] = await settledRuns('issue-triage', 1);
    assert.equal(run.status, 'succeeded', run.reason);
    const [request] = await requestsOf(REPLAY);
    assert.ok(request, 'the replayed run asked the model');
    assert.match(request, /a recorded GitHub issues \(opened\) event on [\w.-]+\/[\w.-]+#\d+, replayed in VS Code/);
    assert.ok(request.includes('untrusted-event-text'), 'the event text is in its delimited, untrusted block');
    assert.ok(request.includes(JSON.stringify(opened.issue.title).slice(1, -1)), 'the issue title reached the model');
    assert.match(request, /\\"labels\\": \[<at most 1 of: bug, question>\]/, 'the outputs it may propose, as on CI');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a burst of new errors under src/** is one run that names the files; a later burst is a second', async () => {
    await scriptModel(DIAG, [endStep()]);
    const uri = (rel: string) => vscode.Uri.joinPath(root(), rel);
    const error = (line: number, message: string) => new vscode.Diagnostic(new vscode.Range(line, 0, line, 5), message, vscode.DiagnosticSeverity.Error);
    // Outside the chore's glob: never part of its context.
    let seen = nextDiagnosticsChange();
    collection.set(uri('README.md'), [error(0, 'outside the glob')]);
    await seen;
    for (const [file, message] of [
      ['src/greet.js', 'greet is not defined'],
      ['src/math.js', 'add expects 2 arguments'],
      ['src/greet.js', 'unexpected token'],
      ['src/extra.js', 'missing semicolon'],
    ] as const) {
      seen = nextDiagnosticsChange();
      collection.set(uri(file), [...(collection.get(uri(file)) ?? []), error(collection.get(uri(file))?.length ?? 0, message)]);
      await seen;
    }
    const first = await settledRuns('diag-watch', 1);
    assert.equal(first.length, 1, `one burst, one entry in the history: ${JSON.stringify(first)}`);
    assert.equal(first[0].status, 'succeeded', first[0].reason);
    const requests = await requestsOf(DIAG);
    assert.equal(requests.length, 1, 'one model request for the one run');
    assert.match(requests[0], /new errors appeared in 3 file\(s\)/);
    assert.match(requests[0], /src\/greet\.js: 2/);
    assert.match(requests[0], /src\/math\.js: 1 \(first: line 1: add expects 2 arguments\)/);
    assert.match(requests[0], /src\/extra\.js: 1/);
    assert.ok(!requests[0].includes('outside the glob'), 'README.md is outside src/**');

    // The first run ended after its debounce; the next burst is news again.
    await scriptModel(DIAG, [endStep()]);
    for (const file of ['src/math.js', 'src/later.js']) {
      seen = nextDiagnosticsChange();
      collection.set(uri(file), [...(collection.get(uri(file)) ?? []), error(3, `second burst in ${file}`)]);
      await seen;
    }
    const both = await settledRuns('diag-watch', 2);
    assert.equal(both.length, 2, JSON.stringify(both));
    assert.ok(
      both.every((r) => r.status === 'succeeded'),
      JSON.stringify(both),
    );
    const second = (await requestsOf(DIAG)).slice(1);
    assert.equal(second.length, 1, 'one model request for the second run');
    assert.match(second[0], /new errors appeared in 2 file\(s\)/);
    assert.match(second[0], /src\/later\.js: 1 \(first: line 4: second burst in src\/later\.js\)/);
    assert.match(second[0], /src\/math\.js: 2/);
    assert.ok(!second[0].includes('src/greet.js'), 'greet.js did not change in the second burst');
  });

  it('the workspace daily cap stops the next run, pauses the chore, and Resume lets it run again', async () => {
    // Chores of earlier suites in this workbench spent today already (the scripted model is priced
    // at the conservative estimate there): the cap is set $0.10 above what is spent now.
    const before = (await vscode.commands.executeCommand('tasklane.resumeChore', 'spender')) as string;
    const spentToday = Number(/all chores today \$(\d+\.\d+)/.exec(before)?.[1] ?? NaN);
    assert.ok(Number.isFinite(spentToday), `today's spend is reported: ${before}`);
    await chores.update('maxCostUsdPerDay', spentToday + 0.11, vscode.ConfigurationTarget.Global);
    // 100k input tokens priced as gpt-4o: $0.25, past the cap after the first run's one call.
    await scriptModel(SPEND, [endStep({ model: 'gpt-4o', usage: { input: 100_000, output: 0 } })]);
    await vscode.commands.executeCommand('tasklane.runChoreNow', 'spender');
    const [spent] = await settledRuns('spender', 1);
    assert.equal(spent.status, 'succeeded', `the cap is checked before each call, so the first fits: ${spent.reason}`);
    assert.ok((spent.usage?.cost ?? 0) >= 0.25, `the run's cost: ${JSON.stringify(spent.usage)}`);

    // Scripted so that, were the cap not checked, this run would reach the model and succeed.
    await scriptModel(SPEND, [endStep()]);
    await vscode.commands.executeCommand('tasklane.runChoreNow', 'spender');
    const [stopped] = await settledRuns('spender', 2);
    assert.equal(stopped.status, 'budget_exhausted', JSON.stringify(stopped));
    assert.match(stopped.reason ?? '', /tasklane\.chores\.maxCostUsdPerDay/);
    assert.equal((await requestsOf(SPEND)).length, 1, 'the stopped run made no model call');
    const paused = await untilState('the spender to show as paused', (s) => (chore(s, 'spender')?.paused ? chore(s, 'spender') : undefined));
    assert.match(paused.paused!, /tasklane\.chores\.maxCostUsdPerDay/);
    assert.match(paused.problem ?? '', /Paused: .*Resume it/);
    assert.equal(paused.enabled, false);

    // Paused, Run now is refused with the reason; raising the cap alone does not lift the pause.
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('tasklane.runChoreNow', 'spender')), /Paused: .*maxCostUsdPerDay/);
    await chores.update('maxCostUsdPerDay', 5, vscode.ConfigurationTarget.Global);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('tasklane.runChoreNow', 'spender')), /Paused/);

    const message = (await vscode.commands.executeCommand('tasklane.resumeChore', 'spender')) as string;
    assert.match(message, /^Resumed: .*all chores today \$\d+\.\d\d of \$5\b/);
    const resumed = await untilState(
      'the spender to be enabled again',
      (s) => !chore(s, 'spender')?.paused && chore(s, 'spender')?.enabled && chore(s, 'spender'),
    );
    assert.equal(resumed.problem, undefined);
    await vscode.commands.executeCommand('tasklane.runChoreNow', 'spender');
    const [again] = await settledRuns('spender', 3);
    assert.equal(again.status, 'succeeded', again.reason);
    assert.equal((await requestsOf(SPEND)).length, 2, 'the resumed run reached the model');
  });

  it('two commits within the quiet time are one git-HEAD run that names both ends; a later commit a second', async function () {
    const git = vscode.extensions.getExtension<{
      getAPI(v: 1): { repositories: Array<{ rootUri: vscode.Uri; state: { HEAD?: { commit?: string } }; status(): Promise<void> }> };
    }>('vscode.git');
    assert.ok(git, 'the built-in git extension is installed');
    const api = (git.isActive ? git.exports : await git.activate()).getAPI(1);
    const dir = root().fsPath;
    const run = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Tasklane Test', '-c', 'user.email=test@tasklane.invalid', ...args], { cwd: dir, encoding: 'utf8' }).trim();
    const start = run('rev-parse', 'HEAD');
    // The chore follows the repository the git extension opened; commit only once it sees it.
    await until(
      'the git extension to open the workspace repository',
      async () => api.repositories.find((r) => r.rootUri.toString() === root().toString() && r.state.HEAD?.commit === start),
      60_000,
    );
    // The git extension notices a commit from its file watcher after a delay of its own; status()
    // makes it look now, as its Refresh button does, so the burst fits a short quiet time.
    const sees = async (commit: string) => {
      const repository = api.repositories.find((r) => r.rootUri.toString() === root().toString());
      await repository?.status();
      return until(
        `the git extension to see HEAD at ${commit.slice(0, 12)}`,
        async () => api.repositories.find((r) => r.rootUri.toString() === root().toString() && r.state.HEAD?.commit === commit),
        60_000,
      );
    };
    await scriptModel(HEAD, [endStep()]);
    run('commit', '-q', '--allow-empty', '-m', 'first of a burst');
    // Two HEAD moves the chore is told about, within its quiet time: one burst, one run.
    await sees(run('rev-parse', 'HEAD'));
    run('commit', '-q', '--allow-empty', '-m', 'second of a burst');
    const end = run('rev-parse', 'HEAD');
    await sees(end);
    const runs = await settledRuns('head-watch', 1, 90_000);
    // The run's one request: the HEAD it ends at is in it, so both commits are behind this run.
    const [request] = await until('the HEAD run to reach the model', async () => {
      const found = await requestsOf(HEAD);
      return found.length ? found : undefined;
    });
    assert.match(request, new RegExp(`git HEAD moved \\(commit\\) from ${start.slice(0, 12)} to ${end.slice(0, 12)} on main`));
    assert.equal(runs[0].status, 'succeeded', runs[0].reason);
    // A third commit after that run is a second run: the first burst was not left pending.
    await scriptModel(HEAD, [endStep()]);
    run('commit', '-q', '--allow-empty', '-m', 'after the burst');
    const third = run('rev-parse', 'HEAD');
    const both = await settledRuns('head-watch', 2, 90_000);
    assert.equal(both.length, 2, `two bursts, two entries: ${JSON.stringify(both)}`);
    const requests = await requestsOf(HEAD);
    assert.equal(requests.length, 2, 'one model request per run');
    assert.match(requests[1], new RegExp(`from ${end.slice(0, 12)} to ${third.slice(0, 12)}`));
  });
});
