import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { serializeChore } from '../../../src/core/chores/choreSerialize';
import { choreTemplates } from '../../../src/core/chores/templates';
import { choreMark, withoutChoreLines } from '../../../src/core/memory/memory';
import type { ChoreFire } from '../../../src/core/engine/triggerPayloads';
import { startHttpReceiver } from '../../fixtures/escalationServers';
import type { HttpReceiver } from '../../fixtures/escalationServers';
import type { ModelServer } from '../../fixtures/modelServer';
import { waitForIdle } from '../engine/harness';
import { choresFrom, useRunnerHarness } from './runnerHarness';
import type { RunnerHarness } from './runnerHarness';

const chore = (extra: string, trigger = 'trigger: { files: ["src/**"] }') => `chores:
  - id: demo
    name: Demo chore
    ${trigger}
    prompt: Tidy the repo.
${extra
  .split('\n')
  .filter(Boolean)
  .map((l) => `    ${l}`)
  .join('\n')}
`;

const end = (output: Record<string, unknown>, status = 'completed') => ({ toolCalls: [{ name: 'task_end', arguments: { status, summary: 'done', output } }] });
const read = { toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }] };

describe('chore runner: runs through the real engine and store against the scripted model', function () {
  this.timeout(20_000);
  let server: ModelServer;
  let h: RunnerHarness;
  const open = useRunnerHarness((s) => (server = s));

  for (const template of choreTemplates) {
    it(`template ${template.key} runs end to end: trace, usage, success, fire released`, async () => {
      h = await open(choresFrom(`chores:\n${serializeChore(template.spec)}`));
      const output =
        template.key === 'build-failure-fix'
          ? { status: 'fix_proposed', cause: 'typo' }
          : template.key === 'nightly-changelog'
            ? { status: 'done', entries: 2 }
            : { status: 'done', proposed: 1, majors: [] };
      server.script([
        { ...read, usage: { input: 1200, output: 40 } },
        { ...end(output), usage: { input: 1500, output: 30 } },
      ]);
      const key = await h.runner.fire(template.key, 'manual');
      const run = await h.ended(template.key);
      assert.equal(run.status, 'succeeded', run.reason ?? '');
      assert.equal(run.fireKey, key);
      assert.deepEqual(
        run.steps.map((s) => [s.name, s.status]),
        [
          ['read_file', 'ok'],
          ['task_end', 'ok'],
        ],
      );
      assert.match(run.steps[0].args, /src\/app\.ts/);
      assert.match(run.steps[0].result, /answer = 42/);
      assert.equal(typeof run.steps[0].durationMs, 'number');
      assert.equal(run.usage.iterations, 2);
      assert.equal(run.usage.inputTokens, 2700);
      assert.ok(run.usage.costUsd > 0, 'cost from the price table');
      assert.equal(h.done.length, 1, 'the fire is marked done once');
      // The task was told its chore and how success is judged.
      const first = JSON.stringify(server.requests[0].body);
      assert.match(first, /unattended/);
      assert.ok(first.includes(template.spec.successWhen!), 'the success condition is in the instruction');
      const task = h.agent.views.snapshot().tasks[0];
      assert.equal(task.source, `chore:${template.key}`);
      assert.equal(run.taskId, task.id);
    });
  }

  it("a chore run's lines in EVENT.md are marked, and memory distillation leaves them out", async () => {
    h = await open(choresFrom(chore('successWhen: "status = \'done\'"')));
    server.script([end({ status: 'done' })]);
    await h.runner.fire('demo', 'manual');
    assert.equal((await h.ended('demo')).status, 'succeeded');
    await h.agent.sendMessage('a line the person wrote');
    await h.idle();
    // A settled turn has written its EVENT.md lines (the agent's commit waits for them).
    const text = fs.readFileSync(path.join(h.storageDir, 'EVENT.md'), 'utf8');
    // The run's opening line (its name and trigger; the prompt itself stays out of the thread).
    const openingLine = text.split('\n').find((l) => l.includes('Chore run started: Demo chore'))!;
    assert.ok(openingLine.includes(choreMark('demo')), `the chore line is marked: ${openingLine}`);
    const learnable = withoutChoreLines(text).text;
    assert.ok(!learnable.includes('Chore run started'), 'the chore run would be distilled');
    assert.ok(learnable.includes('a line the person wrote'), "the person's line is kept");
  });

  it('successWhen false with iterations left: one more turn with a re-evaluate message, then success', async () => {
    h = await open(choresFrom(chore(`successWhen: "status = 'done'"`)));
    server.script([end({ status: 'almost' }), end({ status: 'done' })]);
    await h.runner.fire('demo', 'manual');
    const run = await h.ended('demo');
    assert.equal(run.status, 'succeeded');
    assert.equal(server.requests.length, 2);
    assert.match(JSON.stringify(server.requests[1].body), /does not meet this chore's success condition/);
  });

  it('successWhen false on the last iteration fails the run; an expression error fails it too', async () => {
    h = await open(choresFrom(chore(`successWhen: "status = 'done'"\nbudget: { maxIterations: 1 }`)));
    server.script([end({ status: 'nope' })]);
    await h.runner.fire('demo', 'manual');
    const run = await h.ended('demo');
    assert.equal(run.status, 'failed');
    assert.match(run.reason ?? '', /successWhen/);
    h = await open(choresFrom(chore(`successWhen: "$number(status) > 1"`)));
    server.script([end({ status: 'abc' })]);
    await h.runner.fire('demo', 'manual');
    const errored = await h.ended('demo');
    assert.equal(errored.status, 'failed');
    assert.match(errored.reason ?? '', /failed on the output/);
  });

  it("maxIterations trips before the next model call: budget_exhausted, the last call's actions still ran", async () => {
    h = await open(choresFrom(chore('budget: { maxIterations: 2 }')));
    server.script([read, read, read]);
    await h.runner.fire('demo', 'manual');
    const run = await h.ended('demo');
    assert.equal(run.status, 'budget_exhausted');
    assert.match(run.reason ?? '', /iterations/);
    assert.equal(server.requests.length, 2, 'no third model call');
    assert.equal(run.steps.length, 2);
    assert.equal(h.agent.views.snapshot().tasks[0].status, 'error');
  });

  it('maxInputTokens trips before the next action', async () => {
    h = await open(choresFrom(chore('budget: { maxInputTokens: 1000 }')));
    server.script([{ ...read, usage: { input: 1500, output: 10 } }]);
    await h.runner.fire('demo', 'manual');
    const run = await h.ended('demo');
    assert.equal(run.status, 'budget_exhausted');
    assert.match(run.reason ?? '', /input tokens/);
    assert.equal(run.steps.length, 0, 'the read was not run');
  });

  it('maxCostUsd trips before the next action', async () => {
    h = await open(choresFrom(chore('budget: { maxCostUsd: 0.0001 }')));
    server.script([{ ...read, usage: { input: 1000, output: 1000 } }]);
    await h.runner.fire('demo', 'manual');
    const run = await h.ended('demo');
    assert.equal(run.status, 'budget_exhausted');
    assert.match(run.reason ?? '', /maxCostUsd/);
  });

  it('maxSeconds: a run that sleeps past its deadline ends budget_exhausted without another model call', async () => {
    h = await open(choresFrom(chore('budget: { maxSeconds: 60 }')));
    server.script([{ toolCalls: [{ name: 'wait', arguments: { seconds: 300 } }] }, read]);
    await h.runner.fire('demo', 'manual');
    await h.idle();
    await h.clock.advance(301_000);
    const run = await h.ended('demo');
    assert.equal(run.status, 'budget_exhausted');
    assert.match(run.reason ?? '', /maxSeconds/);
    assert.equal(server.requests.length, 1);
  });

  it('a cron fire queued before VS Code closed follows drift: skip: 3 min late it runs, more than a day late it is skipped', async () => {
    h = await open(choresFrom(chore('drift: skip', 'trigger: { cron: "0 2 * * *", timezone: UTC }')));
    const queue = async (lateMs: number) => {
      // The first 02:00 UTC not before now - lateMs, so the clock only moves forward.
      const due = Math.ceil((h.clock.now() - lateMs - 2 * 3_600_000) / 86_400_000) * 86_400_000 + 2 * 3_600_000;
      const fire: ChoreFire = {
        kind: 'chore_fire',
        choreId: 'demo',
        fireTime: new Date(due).toISOString(),
        missed: false,
        cause: 'cron',
        fireKey: `chore:demo:${due}`,
      };
      await h.clock.advance(due + lateMs - h.clock.now());
      await h.triggers.emit({ source: 'scheduled', sessionId: 'chore:demo', payload: fire, fireAt: due, dedupKey: `chore:demo:${due}` });
      await h.idle();
      return h.runLog.history('demo').find((r) => r.fireKey === fire.fireKey);
    };
    await h.agent.whenReady();
    server.script([end({})]);
    const onTime = await queue(3 * 60_000);
    assert.equal(onTime?.status, 'succeeded', onTime?.reason ?? undefined);
    assert.equal(server.requests.length, 1);
    const stale = await queue(25 * 3_600_000);
    assert.equal(stale?.status, 'skipped');
    assert.match(stale?.reason ?? '', /delivered 25 h late, more than one interval \(24 h\).*drift: skip/);
    assert.equal(server.requests.length, 1, 'no model call for the stale fire');
  });

  it('concurrency skip records the overlapping fire as skipped; replace cancels the active run', async () => {
    h = await open(choresFrom(chore('concurrency: skip')));
    server.script([{ toolCalls: [{ name: 'wait', arguments: { seconds: 100 } }] }]);
    await h.runner.fire('demo', 'manual');
    await h.idle();
    await h.clock.advance(1000);
    await h.runner.fire('demo', 'manual');
    await h.idle();
    const [second, first] = h.runLog.history('demo');
    assert.equal(second.status, 'skipped');
    assert.match(second.reason ?? '', /concurrency: skip/);
    assert.equal(first.status, 'running');

    server.reset();
    h = await open(choresFrom(chore('concurrency: replace')));
    server.script([{ toolCalls: [{ name: 'wait', arguments: { seconds: 100 } }] }, end({})]);
    await h.runner.fire('demo', 'manual');
    await h.idle();
    await h.clock.advance(1000);
    await h.runner.fire('demo', 'manual');
    await h.idle();
    const [newer, older] = h.runLog.history('demo');
    assert.equal(older.status, 'cancelled');
    assert.match(older.reason ?? '', /replaced/);
    assert.equal(newer.status, 'succeeded');
    assert.equal(h.agent.views.snapshot().tasks.find((t) => t.id === older.taskId)?.status, 'cancelled');
  });

  it('concurrency queue: the second fire waits for the first run and then runs', async () => {
    h = await open(choresFrom(chore('concurrency: queue')));
    server.script([{ toolCalls: [{ name: 'wait', arguments: { seconds: 20 } }] }, end({}), end({})]);
    await h.runner.fire('demo', 'manual');
    await h.idle();
    await h.clock.advance(1000);
    await h.runner.fire('demo', 'manual');
    await h.idle();
    assert.equal(h.runLog.history('demo').length, 1, 'the queued fire has no run yet');
    for (let i = 0; i < 8; i++) {
      await h.clock.advance(5_000);
      await h.idle();
    }
    const runs = h.runLog.history('demo');
    assert.deepEqual(
      runs.map((r) => r.status),
      ['succeeded', 'succeeded'],
    );
    assert.ok(runs[0].startedAt >= runs[1].endedAt!, 'the queued run started after the first ended');
  });

  it('onFailure retry: a failed run is retried after the delay, once per attempt', async () => {
    h = await open(choresFrom(chore('onFailure: retry\nmaxRetries: 1\nretryDelaySeconds: 30')));
    server.script([end({}, 'error'), end({}, 'error')]);
    await h.runner.fire('demo', 'manual');
    await h.ended('demo');
    await h.clock.advance(31_000);
    await h.idle();
    const runs = h.runLog.history('demo');
    assert.deepEqual(
      runs.map((r) => [r.attempt, r.status, r.cause]),
      [
        [1, 'failed', 'retry'],
        [0, 'failed', 'manual'],
      ],
    );
    assert.equal(runs[0].fireKey, runs[1].fireKey);
    await h.clock.advance(600_000);
    await h.idle();
    assert.equal(h.runLog.history('demo').length, 2, 'no retry past maxRetries');
  });

  it('onFailure escalate: the webhook gets the payload, recorded in the ledger first; silent sends nothing', async () => {
    const receiver: HttpReceiver = await startHttpReceiver();
    try {
      h = await open(choresFrom(chore(`onFailure: escalate\nescalate: { webhook: { url: "${receiver.baseUrl}/hook" } }`)));
      server.script([read, end({}, 'error')]);
      await h.runner.fire('demo', 'manual');
      // Ended means its failure policy was carried out: the webhook answered, the ledger has the outcome.
      const run = await h.ended('demo');
      assert.equal(receiver.requests.length, 1);
      const body = receiver.requests[0].body as Record<string, unknown>;
      assert.equal(body.runId, run.runId);
      assert.equal(body.status, 'failed');
      assert.deepEqual(
        (body.lastSteps as Array<{ name: string }>).map((s) => s.name),
        ['read_file', 'task_end'],
      );
      const ledger = h.db.query('SELECT action, status FROM ledger WHERE task_id = ?', [run.runId]);
      assert.deepEqual(
        ledger.map((r) => [r.action, r.status]),
        [['chore_escalation', 'done']],
      );

      server.reset();
      h = await open(choresFrom(chore(`onFailure: silent\nescalate: { webhook: { url: "${receiver.baseUrl}/hook" } }`)));
      server.script([end({}, 'error')]);
      await h.runner.fire('demo', 'manual');
      // Ended: onFailure silent has been applied, so anything it sent would be here by now.
      assert.equal((await h.ended('demo')).status, 'failed');
      assert.equal(receiver.requests.length, 1, 'silent: nothing more sent');
    } finally {
      await receiver.close();
    }
  });

  it('onRunEnded is told after the failure policy and the fire release; settled() waits for them, idle engine or not', async () => {
    const receiver = await startHttpReceiver();
    try {
      // The escalation's ledger intent waits for the test: the run's end is held inside its failure policy.
      let letGo!: () => void;
      const gate = new Promise<void>((resolve) => (letGo = resolve));
      const outcomes: string[] = [];
      h = await open(choresFrom(chore(`onFailure: escalate\nescalate: { webhook: { url: "${receiver.baseUrl}/hook" } }`)), {
        ledger: { intent: async () => (await gate, 'intent-1'), outcome: async (_id, status) => void outcomes.push(status) },
      });
      const told: string[] = [];
      h.runner.onRunEnded((run) => told.push(`${run.status} requests=${receiver.requests.length} outcomes=${outcomes.length} done=${h.done.length}`));
      server.script([end({}, 'error')]);
      await h.runner.fire('demo', 'manual');
      await waitForIdle(h.triggers, h.agent, h.clock); // the engine alone: its turns are over
      let settled = false;
      const settling = h.runner.settled().then(() => (settled = true));
      // One macrotask turn runs every promise callback already queued, so a premature onRunEnded or
      // settle would show below; nothing else can move while the gate holds the escalation.
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(h.runLog.history('demo')[0].status, 'failed', 'the run is recorded as ended');
      assert.deepEqual(told, [], 'but its failure policy is still running');
      assert.equal(settled, false);
      letGo();
      await settling;
      assert.deepEqual(told, ['failed requests=1 outcomes=1 done=1']);
    } finally {
      await receiver.close();
    }
  });

  it('a fire redelivered after a crash between claim and ack resumes its run instead of starting a second', async () => {
    h = await open(choresFrom(chore('')));
    const payload: ChoreFire = { kind: 'chore_fire', choreId: 'demo', fireTime: new Date(h.clock.now()).toISOString(), missed: false, cause: 'files' };
    const trigger = {
      id: 'trig-1',
      source: 'file_event' as const,
      sessionId: 'chore:demo',
      payload,
      fireAt: h.clock.now(),
      priority: 100,
      dedupKey: null,
      attempts: 1,
      status: 'claimed' as const,
      createdAt: 0,
      lastError: null,
    };
    const first = await h.runner.resolveProactive(trigger);
    const again = await h.runner.resolveProactive({ ...trigger, attempts: 2 });
    assert.ok(first && again);
    assert.equal(again.runId, first.runId, 'same run');
    assert.equal(h.runLog.history('demo').length, 1);
    // Once the run has ended, a late redelivery starts nothing.
    await h.runLog.finish(first.runId!, 'succeeded');
    assert.equal(await h.runner.resolveProactive({ ...trigger, attempts: 3 }), undefined);
    assert.equal(h.runLog.history('demo').length, 1);
  });

  it('does not run chores in an untrusted workspace: the fire is recorded as skipped', async () => {
    h = await open(choresFrom(chore('')), { canRun: () => false });
    await h.runner.fire('demo', 'manual');
    const run = await h.ended('demo');
    assert.equal(run.status, 'skipped');
    assert.match(run.reason ?? '', /Restricted Mode/);
    assert.equal(server.requests.length, 0);
  });
});
