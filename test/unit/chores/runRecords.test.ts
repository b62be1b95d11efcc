/**
 * A chore run's record lasts (issue 39): after the archive pass a day later and a reload, the run
 * log (what the Chores view, the 20-run chart, run links and the planner read) still has the run,
 * and a link to a run older than the newest kept per chore still opens it from the archive. The
 * engine is built as every host builds it (createEngine), on a real store and a fake clock.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { CHORE_RUNS_KEPT_HOT } from '../../../src/core/store/archiveRules';
import type { ChoreRunRecord } from '../../../src/core/chores/runLog';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { FakeClock } from '../../fakes/fakeClock';
import { createHarness } from '../engine/harness';
import type { Harness } from '../engine/harness';
import { choresFrom } from './runnerHarness';

const HOUR = 3_600_000;
const chores = choresFrom(`chores:
  - id: nightly
    name: Nightly
    trigger: { cron: "0 2 * * *", timezone: UTC }
    prompt: Check the repo.
    successWhen: "status = 'done'"
`);
const read = { toolCalls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }] };
const end = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done', output: { status: 'done' } } }] };

describe('chore run records outlive the hot store: reload a day later, links a month later', function () {
  this.timeout(60_000);
  let server: ModelServer;
  const open: Harness[] = [];

  before(async () => (server = await startModelServer()));
  after(async () => server.close());
  afterEach(async () => {
    for (const h of open.splice(0)) await h.close();
  });

  async function engineOver(clock: FakeClock, dir?: string): Promise<Harness> {
    const h = await createHarness({ wire: 'openai', server, clock, ...(dir ? { dir } : {}), chores: { secrets: { getSecret: async () => undefined } } });
    if (!dir) open.push(h);
    h.engine.chores!.runner.setChores(chores);
    await h.engine.chores!.runner.attach(h.agent);
    return h;
  }

  /** One Run now of the chore, to its end (failure policy applied); the clock moves a second so each fire has its own key. */
  async function runOnce(h: Harness, steps: object[]): Promise<ChoreRunRecord> {
    const { runner } = h.engine.chores!;
    server.script(steps);
    const ended = new Promise<ChoreRunRecord>((resolve) => {
      const told = runner.onRunEnded((run) => {
        told.dispose();
        resolve(run);
      });
    });
    await runner.fire('nightly', 'manual');
    const run = await ended;
    await h.clock.advance(1000);
    return run;
  }

  it('25 hours after a run, the archive pass has run and a reload still shows the run, its trace and its link', async () => {
    const clock = new FakeClock();
    const h = await engineOver(clock);
    const run = await runOnce(h, [read, end]);
    assert.equal(run.status, 'succeeded');
    await clock.advance(25 * HOUR);
    await h.idle();
    // The pass the clock's advance scheduled may have moved the rows already (it runs on its own
    // timer, racing this one): either pass counts, as the log line each writes says.
    await h.agent.history.runPass();
    assert.ok(
      h.logger.lines.some((l) => /history: [1-9]\d* rows archived/.test(l)),
      `the archive pass moved the ended task and its rows: ${h.logger.lines.filter((l) => l.includes('history:')).join(' | ')}`,
    );
    await h.shutdown();

    const again = await engineOver(clock, h.dir);
    try {
      const { runLog } = again.engine.chores!;
      const history = runLog.history('nightly');
      assert.deepEqual(
        history.map((r) => [r.runId, r.status]),
        [[run.runId, 'succeeded']],
        'the Chores view and the chart read this history',
      );
      assert.deepEqual(
        runLog.get(run.runId)?.steps.map((s) => s.name),
        ['read_file', 'task_end'],
        'the run link opens the trace',
      );
    } finally {
      await again.close();
    }
  });

  it(`a link to a run older than the newest ${CHORE_RUNS_KEPT_HOT} opens it from the archive after a reload`, async () => {
    const clock = new FakeClock();
    const h = await engineOver(clock);
    const first = await runOnce(h, [read, end]);
    for (let i = 0; i < CHORE_RUNS_KEPT_HOT; i += 1) await runOnce(h, [end]);
    await clock.advance(30 * 24 * HOUR);
    await h.idle();
    await h.agent.history.runPass();
    const hot = h.db.query('SELECT id FROM chore_runs').map((r) => String(r.id));
    assert.equal(hot.length, CHORE_RUNS_KEPT_HOT, 'the newest runs stay hot');
    assert.ok(!hot.includes(first.runId), 'the oldest one moved to the archive');
    await h.shutdown();

    const again = await engineOver(clock, h.dir);
    try {
      const { runLog } = again.engine.chores!;
      assert.equal(runLog.history('nightly').length, CHORE_RUNS_KEPT_HOT);
      const opened = runLog.get(first.runId);
      assert.equal(opened?.status, 'succeeded', 'the month-old link still opens its run');
      assert.deepEqual(
        opened?.steps.map((s) => s.name),
        ['read_file', 'task_end'],
      );
      assert.equal(runLog.get('run-from-elsewhere'), undefined);
    } finally {
      await again.close();
      fs.rmSync(h.dir, { recursive: true, force: true });
    }
  });
});
