import * as assert from 'node:assert/strict';
import { Ledger } from '../../../src/core/actions/ledger';
import { commandActions, guardRestricted } from '../../../src/core/approval/commands/commandActions';
import type { CommandResult } from '../../../src/core/approval/commands/commandApproval';
import { DbCommandApprovalStore } from '../../../src/core/approval/commands/commandApproval';
import type { CommandRunner } from '../../../src/core/approval/commands/commandService';
import { CommandService } from '../../../src/core/approval/commands/commandService';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { createHarness } from '../engine/harness';
import type { Harness } from '../engine/harness';

/** Records what it was asked to run and answers with a fixed exit code. */
class FakeRunner implements CommandRunner {
  readonly ran: string[] = [];
  exitCode = 0;
  async runCommand(command: string): Promise<CommandResult> {
    this.ran.push(command);
    return { exitCode: this.exitCode, output: `ran ${command}\n`, truncatedChars: 0, timedOut: false, cancelled: false, durationMs: 5 };
  }
  async runTask(name: string): Promise<CommandResult> {
    this.ran.push(`task:${name}`);
    return { exitCode: this.exitCode, output: '', truncatedChars: 0, timedOut: false, cancelled: false, durationMs: 5 };
  }
}

describe('approval: run_command / run_task through the engine (allowlist, approve, reject, Restricted Mode)', () => {
  let server: ModelServer;
  let h: Harness;
  let runner: FakeRunner;
  let service: CommandService;
  let allowed: string[];
  let trusted: boolean;
  before(async () => {
    server = await startModelServer();
  });
  after(async () => server.close());
  beforeEach(async () => {
    server.reset();
    runner = new FakeRunner();
    allowed = ['npm test'];
    trusted = true;
    const forward = { request: (spec: Parameters<CommandService['request']>[0]) => service.request(spec) };
    h = await createHarness({ wire: 'openai', server, actions: guardRestricted(commandActions(forward), () => trusted) });
    const store = new DbCommandApprovalStore(h.db, h.clock);
    service = new CommandService({
      store,
      runner,
      gate: { allowedCommands: () => allowed, trusted: () => trusted },
      ledger: new Ledger(h.db, h.clock),
      triggers: h.triggers,
      clock: h.clock,
      logger: h.logger,
    });
  });
  afterEach(async () => h.close());

  async function startTaskRunning(command: { name: string; arguments: Record<string, unknown> }): Promise<string> {
    server.script([
      { toolCalls: [{ name: 'task_start', arguments: { name: 'Check', instruction: 'Run the tests', mode: 'simple' } }] },
      { toolCalls: [command] },
    ]);
    await h.agent.sendMessage('run the tests');
    await h.idle();
    return h.agent.views.snapshot().tasks[0].id;
  }

  const lastToolResult = () => JSON.stringify(server.requests.at(-1)?.body);

  it('an exactly allowlisted command runs in the turn, with ledger intent and outcome', async () => {
    server.script([]);
    const id = await startTaskRunning({ name: 'run_command', arguments: { command: 'npm test' } });
    assert.deepEqual(runner.ran, ['npm test']);
    const end = (await h.agent.views.readTaskEvents(id, { limit: 50 })).find((e) => e.kind === 'action_end' && e.data.name === 'run_command');
    assert.match(String(end?.data.output), /exited with code 0[\s\S]*ran npm test/);
    const ledger = new Ledger(h.db, h.clock).entries(id);
    assert.deepEqual(
      ledger.map((e) => [e.action, e.status]),
      [['run_command', 'done']],
    );
    assert.equal((await service.pending()).length, 0);
  });

  for (const command of ['npm test && rm -rf x', 'npm test > out.txt', 'npm test $(whoami)', 'npm test $HOME', 'npm test -- --grep x']) {
    it(`asks for '${command}' although 'npm test' is allowlisted, and runs nothing yet`, async () => {
      const id = await startTaskRunning({ name: 'run_command', arguments: { command } });
      assert.deepEqual(runner.ran, []);
      const [pending] = await service.pending();
      assert.equal(pending?.command, command);
      const task = h.agent.views.snapshot().tasks.find((t) => t.id === id)!;
      assert.equal(task.waitingForApproval, pending.id);
    });
  }

  it('approve runs it and the task sees the output in its next turn', async () => {
    const id = await startTaskRunning({ name: 'run_command', arguments: { command: 'npm run lint' } });
    const [pending] = await service.pending();
    server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'lint ran' } }] }]);
    await service.approve(pending.id);
    await h.idle();
    assert.deepEqual(runner.ran, ['npm run lint']);
    assert.match(lastToolResult(), /Approval cmd-[^:]+: approved[^"]*exited with code 0[^"]*ran npm run lint/);
    assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === id)!.status, 'completed');
    assert.deepEqual(
      new Ledger(h.db, h.clock).entries(id).map((e) => e.status),
      ['done'],
    );
    await assert.rejects(service.approve(pending.id), /no command approval/);
    assert.equal(runner.ran.length, 1, 'a second approve runs nothing');
  });

  it('reject runs nothing and tells the task the reason', async () => {
    await startTaskRunning({ name: 'run_task', arguments: { name: 'failing-build' } });
    const [pending] = await service.pending();
    assert.equal(pending.kind, 'task');
    server.script([{ toolCalls: [{ name: 'task_end', arguments: { summary: 'ok' } }] }]);
    await service.reject(pending.id, 'not on my machine');
    await h.idle();
    assert.deepEqual(runner.ran, []);
    assert.match(lastToolResult(), /rejected[^"]*not on my machine/);
  });

  it('run_task is allowlisted as task:<name> only, and returns the exit code', async () => {
    allowed = ['build', 'task:failing-build'];
    runner.exitCode = 1;
    const id = await startTaskRunning({ name: 'run_task', arguments: { name: 'failing-build' } });
    assert.deepEqual(runner.ran, ['task:failing-build']);
    const end = (await h.agent.views.readTaskEvents(id, { limit: 50 })).find((e) => e.kind === 'action_end' && e.data.name === 'run_task');
    assert.match(String(end?.data.output), /task 'failing-build' exited with code 1/);
    assert.deepEqual(
      new Ledger(h.db, h.clock).entries(id).map((e) => e.status),
      ['failed'],
    );
  });

  it('refuses to run an approved command while the store is not durable, and keeps it pending', async () => {
    await startTaskRunning({ name: 'run_command', arguments: { command: 'make deploy' } });
    const [pending] = await service.pending();
    Object.defineProperty(h.db, 'durable', { configurable: true, get: () => false });
    await assert.rejects(service.approve(pending.id), /cannot be saved/);
    assert.deepEqual(runner.ran, []);
    assert.equal((await service.pending())[0]?.id, pending.id);
  });

  it('Restricted Mode: the actions refuse with what to tell the user; trust granted at runtime works without a reload', async () => {
    trusted = false;
    const id = await startTaskRunning({ name: 'run_command', arguments: { command: 'npm test' } });
    assert.deepEqual(runner.ran, []);
    const end = (await h.agent.views.readTaskEvents(id, { limit: 50 })).find((e) => e.kind === 'action_end' && e.data.name === 'run_command');
    assert.match(String(end?.data.error), /Restricted Mode[\s\S]*trust the folder/);
    const offered = (i: number) => JSON.stringify((server.requests[i].body as { tools?: unknown }).tools ?? []).includes('"run_command"');
    assert.equal(offered(server.requests.length - 1), false, 'run_command was offered to the model in Restricted Mode');
    trusted = true; // granted at runtime: no reload needed
    server.script([{ toolCalls: [{ name: 'run_command', arguments: { command: 'npm test' } }] }]);
    await h.agent.sendMessage('try again', { replyToTaskId: id });
    await h.idle();
    assert.deepEqual(runner.ran, ['npm test']);
    assert.ok(
      server.requests.slice(-2).some((_, i, all) => offered(server.requests.length - all.length + i)),
      'run_command was not offered again once trusted',
    );
  });
});
