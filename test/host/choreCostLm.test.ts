import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateTasklane, quiesce, requestsText, resetModel, scriptModel, until, writeChoresFile } from './support/tasklane';
import { asPerson } from './support/asPerson';

// Issue 22's cost truth through vscode.lm: a model VS Code provides has no price Tasklane knows, so
// a chore on it is charged at the conservative rate, says so, and still trips its per-run cap. The
// model here is the test's LM provider extension, which answers from the scripted server; its
// tokens are counted by the provider's own countTokens, as any vscode.lm model's are.

interface ChoreRun {
  id: string;
  status: string;
  reason?: string;
  pausedAtBudget?: string;
  usage: { iterations: number; cost: number; costEstimated?: boolean };
}
interface ChoreState {
  id: string;
  enabled: boolean;
  consent?: 'needed' | 'given';
  review?: { definitionHash: string };
  runs: ChoreRun[];
}
interface State {
  chores: ChoreState[];
}

const PROMPT = 'Read the README again and again, through vscode.lm.';
const root = () => vscode.workspace.workspaceFolders![0].uri;
const state = async () => (await vscode.commands.executeCommand('tasklane.getState')) as State;
const chore = (s: State, id: string) => s.chores.find((c) => c.id === id);

describe('host: a chore on a vscode.lm model has an estimated cost that trips its cap', function () {
  this.timeout(90_000);
  const model = () => vscode.workspace.getConfiguration('tasklane.model');

  before(async () => {
    await activateTasklane();
    await quiesce();
    await resetModel();
    const target = vscode.ConfigurationTarget.Global;
    await model().update('provider', 'vscode-lm', target);
    await model().update('id', 'scripted', target);
    await model().update('baseUrl', '', target);
    // No price for it anywhere: the estimate is what is under test.
    await model().update('prices', undefined, target);
    const yaml =
      [
        'chores:',
        '  - id: lm-spender',
        '    name: LM spender',
        '    trigger: { cron: "0 3 * * *" }',
        `    prompt: "${PROMPT}"`,
        '    budget: { maxCostUsd: 0.005, maxIterations: 20 }',
      ].join('\n') + '\n';
    const loaded = await writeChoresFile<State>(yaml, (s) => Boolean(chore(s, 'lm-spender')?.review));
    const c = chore(loaded, 'lm-spender')!;
    if (c.consent === 'needed') await asPerson(() => vscode.commands.executeCommand('tasklane.enableChore', c.id, c.review!.definitionHash), 'Enable');
    await until('the chore to be enabled', async () => chore(await state(), 'lm-spender')?.enabled || undefined);
  });

  after(async () => {
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(root(), '.tasklane/chores.yaml')).then(undefined, () => undefined);
    await quiesce();
    await model().update('provider', 'auto', vscode.ConfigurationTarget.Global);
  });

  it('pauses at budget.maxCostUsd, charged at the conservative rate and marked estimated', async () => {
    const read = { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] };
    // Were the cost $0 (the bug this pins), the run would go on for all ten reads and then end.
    await scriptModel(PROMPT, [...Array.from({ length: 10 }, () => read), { toolCalls: [{ name: 'task_end', arguments: { summary: 'done' } }] }]);
    await vscode.commands.executeCommand('tasklane.runChoreNow', 'lm-spender');
    // A cap pauses, never kills: the run waits at its budget for Resume, its state kept.
    const run = await until(
      'the run to pause',
      async () => chore(await state(), 'lm-spender')?.runs.find((r) => r.status !== 'running' || r.pausedAtBudget),
      60_000,
    );
    assert.equal(run.status, 'running', `the cap paused the run instead of ending it: ${run.reason}`);
    assert.match(run.pausedAtBudget ?? '', /estimated: the model has no known price.*budget\.maxCostUsd/);
    assert.match(run.reason ?? '', /^Paused at budget: .*Resume continues it\.$/);
    assert.equal(run.usage.costEstimated, true);
    assert.ok(run.usage.cost > 0.005, `the run's cost ${run.usage.cost} is past its cap`);
    const calls = (await requestsText(PROMPT)).length;
    assert.ok(calls >= 1 && calls < 11, `the model was called ${calls} times; the cap should stop it before the script ends`);
  });
});
