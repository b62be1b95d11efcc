import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateTasklane, quiesce, requestsText, resetModel, scriptModel, writeChoresFile, until, useScriptedModel } from './support/tasklane';
import { asPerson } from './support/asPerson';

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
  /** A files chore: the bursts its debounce fired, and whether it is collecting one now. */
  files?: { fired: number; collecting: boolean };
}
interface State {
  chores: ChoreState[];
  tasks: Array<{ id: string; source: string; status: string; waitingForApproval?: string }>;
  approvals: Array<{ id: string; status: string; choreId?: string; files: Array<{ path: string }> }>;
}

const root = () => vscode.workspace.workspaceFolders![0].uri;
const everything = path.join(process.env.TASKLANE_REPO_ROOT ?? '', 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const write = (rel: string, text: string) => vscode.workspace.fs.writeFile(vscode.Uri.joinPath(root(), rel), new TextEncoder().encode(text));
const state = async () => (await vscode.commands.executeCommand('tasklane.getState')) as State;

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
    const yaml =
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
        '  - id: checker',
        '    name: Checker',
        '    trigger: { cron: "0 4 * * *" }',
        '    prompt: Check the toolchain.',
        '    commands: ["node --version"]',
        '  - id: echoer',
        '    name: Echoer',
        '    trigger: { cron: "0 5 * * *" }',
        '    prompt: Echo through the chore server.',
        '    mcp:',
        `      kit: { tools: [echo], command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(everything)}, stdio] }`,
        '  - id: hourly',
        '    name: Hourly',
        '    trigger: { cron: "0 6 * * *" }',
        '    prompt: Say what time it is.',
        '    budget: { maxFiresPerHour: 1 }',
      ].join('\n') + '\n';
    const loaded = await writeChoresFile<State>(yaml, (s) => Boolean(chore(s, 'fixer')));
    // Written by the test, not with New Chore: each waits for the person's Enable (the consent suite tests that).
    for (const c of loaded.chores) {
      if (c.consent === 'needed' && c.review)
        await asPerson(() => vscode.commands.executeCommand('tasklane.enableChore', c.id, c.review!.definitionHash), 'Enable');
    }
    await untilState('the chores to be enabled', (s) =>
      ['notes-digest', 'failed-build', 'fixer', 'checker', 'echoer', 'hourly'].every((id) => chore(s, id)?.enabled),
    );
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
    const fired = chore(await state(), 'notes-digest')?.files?.fired;
    assert.equal(typeof fired, 'number', 'getState reports the bursts of a files chore');
    // Six saves in a row; the last is to a file of its own, so a burst that names it came after every save.
    const saves = ['n0', 'n1', 'n2', 'n0', 'n1', 'last'];
    for (const [i, name] of saves.entries()) await write(`notes/${name}.md`, `note ${i}\n`);
    const runs = await untilState('the notes run to end', (s) => {
      const r = chore(s, 'notes-digest')?.runs ?? [];
      return r.length && r.every((x) => x.status !== 'running') ? r : undefined;
    });
    assert.equal(runs[0].status, 'succeeded', runs[0].reason);
    // The trigger context reaches the model: the run's first request names every changed file.
    const first = (await requestsText('Summarise the notes.'))[0];
    assert.ok(first, 'the notes run reached the model');
    for (const file of ['notes/n0.md', 'notes/n1.md', 'notes/n2.md', 'notes/last.md']) assert.ok(first.includes(file), `${file} in the first request`);
    // That burst held the last save, so no save is left to start another: the debounce fired once,
    // collects nothing now, and the chore has one run.
    const after = chore(await state(), 'notes-digest')!;
    assert.deepEqual(after.files, { fired: fired! + 1, collecting: false });
    assert.equal(after.runs.length, 1, JSON.stringify(after.runs));
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
    // The turn has parked on the proposal, which waits undecided: only approving it writes the file.
    const proposal = (await state()).approvals.find((a) => a.id === waiting.waitingForApproval);
    assert.equal(proposal?.status, 'pending', JSON.stringify(proposal));
    assert.equal(proposal.choreId, 'fixer');
    assert.deepEqual(
      proposal.files.map((f) => f.path),
      ['README.md'],
    );
    const now = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root(), 'README.md')));
    assert.equal(now, before, 'nothing written unattended');
    assert.equal(chore(await state(), 'fixer')?.runs[0]?.status, 'running', 'the run waits (until maxSeconds) for the review');
  });

  it('an enabled chore runs its declared command without a card, asks for any other, and an edit of commands: asks for Enable again', async () => {
    const runCommand = (command: string) => ({ toolCalls: [{ name: 'run_command', arguments: { command } }] });
    await scriptModel('Check the toolchain.', [runCommand('node --version'), runCommand('node --help')]);
    await vscode.commands.executeCommand('tasklane.runChoreNow', 'checker');
    const waiting = await untilState('the checker task to wait for an approval', (s) =>
      s.tasks.find((t) => t.source === 'chore:checker' && t.waitingForApproval),
    );
    assert.match(waiting.waitingForApproval ?? '', /^cmd-/, 'the undeclared command waits for a person');
    const requests = await requestsText('Check the toolchain.');
    assert.match(requests[0] ?? '', /You may run exactly these commands.*node --version/);
    assert.match(requests[1] ?? '', /`node --version` exited with code 0/, 'the declared command ran without a card');
    await vscode.commands.executeCommand('tasklane.cancelTask', waiting.id);

    const yaml = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root(), '.tasklane/chores.yaml')));
    await writeChoresFile<State>(
      yaml.replace('commands: ["node --version"]', 'commands: ["node --version", "npm publish"]'),
      (s) => chore(s, 'checker')?.consent === 'needed',
    );
    assert.equal(chore(await state(), 'checker')?.enabled, false, 'a changed commands: list needs Enable again');
  });

  it('an enabled chore starts the MCP server it defines, calls its declared tool without a card, and is refused any other', async () => {
    const call = (name: string, args: Record<string, unknown> = {}) => ({ toolCalls: [{ name, arguments: args }] });
    await scriptModel('Echo through the chore server.', [call('mcp_kit_echo', { message: 'hello unattended' }), call('mcp_kit_get_env'), endStep({})]);
    // Enable started the server and offered its tools.
    await until('the chore server to be ready', async () => {
      const servers = ((await vscode.commands.executeCommand('tasklane.getState')) as { mcpServers: Array<{ name: string; state: string; tools?: number }> })
        .mcpServers;
      return servers.some((m) => m.name === 'kit' && m.state === 'ready' && (m.tools ?? 0) > 0);
    });
    await vscode.commands.executeCommand('tasklane.runChoreNow', 'echoer');
    const run = await untilState('the echoer run to end', (s) => chore(s, 'echoer')?.runs.find((r) => r.status !== 'running'));
    assert.equal(run.status, 'succeeded', run.reason);
    const requests = await requestsText('Echo through the chore server.');
    assert.match(requests[1] ?? '', /MCP tool kit\/echo returned:\\nEcho: hello unattended/, 'the declared tool ran without a card');
    assert.match(requests[2] ?? '', /MCP tool kit\/get-env was refused: this task's chore declares only kit\/echo/);
  });

  it('Run Chore Now past budget.maxFiresPerHour says why it does not start, and starts nothing', async () => {
    await scriptModel('Say what time it is.', [{ toolCalls: [{ name: 'task_end', arguments: { summary: 'it is noon' } }] }]);
    await vscode.commands.executeCommand('tasklane.runChoreNow', 'hourly');
    const first = await untilState('the first hourly run to end', (s) => chore(s, 'hourly')?.runs.find((r) => r.status !== 'running'));
    assert.equal(first.status, 'succeeded', first.reason);
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('tasklane.runChoreNow', 'hourly')),
      /The chore "hourly" does not run now: already fired 1 time\(s\) in the last hour, its cap \(budget\.maxFiresPerHour 1\); the next fire may run from \d\d:\d\d UTC/,
    );
    assert.equal(chore(await state(), 'hourly')?.runs.length, 1, 'the refused Run Now recorded or started a run');
    assert.equal((await requestsText('Say what time it is.')).length, 1, 'the refused Run Now reached the model');
  });

  it('a .vscode/mcp.json server under the name an enabled chore defines is not trusted through that chore', async () => {
    // The person enabled `echoer` for its own `kit` (server-everything). A repository that also
    // ships a `kit` in mcp.json wins the name there: that is not what the person saw at Enable.
    type Server = { name: string; state: string; consent: string; target: string };
    const kit = async () => ((await vscode.commands.executeCommand('tasklane.getState')) as { mcpServers: Server[] }).mcpServers.find((m) => m.name === 'kit');
    const marker = path.join(root().fsPath, 'mcp-json-kit-ran.txt');
    const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`;
    const mcpJson = vscode.Uri.joinPath(root(), '.vscode/mcp.json');
    const file = JSON.stringify({ servers: { kit: { type: 'stdio', command: process.execPath, args: ['-e', script] } } });
    await vscode.workspace.fs.writeFile(mcpJson, new TextEncoder().encode(file));
    try {
      const shown = await until("mcp.json's kit to be listed", async () => {
        const server = await kit();
        return server?.target.includes('mcp-json-kit-ran') ? server : undefined;
      });
      assert.equal(shown.consent, 'needed', `mcp.json's kit is trusted through the chore: ${JSON.stringify(shown)}`);
      assert.equal(shown.state, 'untrusted');
      assert.equal(fs.existsSync(marker), false, "mcp.json's kit ran");
      assert.ok(chore(await state(), 'echoer')?.enabled, 'the chore itself stays enabled');
    } finally {
      await vscode.workspace.fs.delete(mcpJson);
      fs.rmSync(marker, { force: true });
    }
    // Without the clash, the chore's own kit is the one it trusts, and it runs again.
    const back = await until("the chore's kit to be ready again", async () => {
      const server = await kit();
      return server && !server.target.includes('mcp-json-kit-ran') && server.state === 'ready' ? server : undefined;
    });
    assert.equal(back.consent, 'chore');
  });

  it('a chores.yaml that a pull brings into a folder without .tasklane/ is loaded without a reload', async () => {
    const yaml = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root(), '.tasklane/chores.yaml')));
    // As git does it, outside VS Code: the folder goes, then comes back with the file in it.
    const dir = path.join(root().fsPath, '.tasklane');
    fs.rmSync(dir, { recursive: true, force: true });
    await untilState('the chores to be gone with their file', (s) => s.chores.length === 0);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'chores.yaml'), yaml);
    // Written once: the watcher must see it (no rewrite, no reload).
    await untilState('the chores to come back', (s) => Boolean(chore(s, 'checker')), 15_000);
  });
});
