import * as assert from 'node:assert/strict';
import { ChoreScheduler } from '../../../src/core/chores/choreScheduler';
import { FileTriggerDebouncer, burstContext } from '../../../src/core/chores/fileTriggers';
import { mergeChange } from '../../../src/core/chores/fireContext';
import { InMemorySchedulePersistence } from '../../../src/core/chores/schedulePersistence';
import { cronKey } from '../../../src/core/chores/schedule';
import type { ModelServer } from '../../fixtures/modelServer';
import { choresFrom, useRunnerHarness } from './runnerHarness';
import type { RunnerHarness } from './runnerHarness';

const end = { toolCalls: [{ name: 'task_end', arguments: { status: 'completed', summary: 'done' } }] };
const yaml = (trigger: string) => `chores:
  - id: demo
    name: Demo chore
    ${trigger}
    prompt: Look into it.
`;
const firstRequest = (server: ModelServer) => JSON.stringify(server.requests[0].body);

describe("chore trigger context reaches the model in the run's first message", function () {
  this.timeout(20_000);
  let server: ModelServer;
  let h: RunnerHarness;
  const open = useRunnerHarness((s) => (server = s));

  it('a file burst lists each changed file with its net change', async () => {
    h = await open(choresFrom(yaml('trigger: { files: ["src/**"], debounceMs: 500 }')));
    server.script([end]);
    const harness = h;
    const fired: Array<Promise<string>> = [];
    const debouncer = new FileTriggerDebouncer({
      clock: h.clock,
      onFire: (burst) => fired.push(harness.runner.fire(burst.choreId, 'files', burstContext(burst))),
    });
    debouncer.configure([{ id: 'demo', debounceMs: 500 }]);
    debouncer.push('demo', 'src/new.ts', 'created');
    debouncer.push('demo', 'src/new.ts', 'changed');
    debouncer.push('demo', 'src/app.ts', 'changed');
    debouncer.push('demo', 'src/old.ts', 'deleted');
    await h.clock.advance(600);
    assert.equal(fired.length, 1, 'one fire per burst');
    await fired[0];
    const run = await h.ended('demo');
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    const body = firstRequest(server);
    assert.match(body, /3 file\(s\) changed \(4 event\(s\)\)/);
    assert.match(body, /- created: src\/new\.ts/);
    assert.match(body, /- changed: src\/app\.ts/);
    assert.match(body, /- deleted: src\/old\.ts/);
  });

  it('a task end tells the task name and exit code, and says the output is not available', async () => {
    h = await open(choresFrom(yaml('trigger: { task: { name: build } }')));
    server.script([end]);
    await h.runner.fire('demo', 'task', { kind: 'task', name: 'build', exitCode: 2 });
    await h.ended('demo');
    const body = firstRequest(server);
    assert.match(body, /the task \\"build\\" ended with exit code 2/);
    assert.match(body, /output is not available/);
  });

  it('a task end with an output tail carries it', async () => {
    h = await open(choresFrom(yaml('trigger: { task: { name: build } }')));
    server.script([end]);
    await h.runner.fire('demo', 'task', { kind: 'task', name: 'build', exitCode: 1, outputTail: 'src/app.ts(3,1): error TS2304' });
    await h.ended('demo');
    assert.match(firstRequest(server), /error TS2304/);
  });

  it('a cron fire run late after a night off says by how many hours it was missed', async () => {
    h = await open(choresFrom(yaml('trigger: { cron: "0 6 * * *", timezone: UTC }')));
    server.script([end]);
    // The editor closed at 05:30 UTC; it is reopened at 09:00 (the harness clock's start).
    const persistence = new InMemorySchedulePersistence();
    persistence.save({
      choreId: 'demo',
      cronKey: cronKey({ cron: '0 6 * * *', timezone: 'UTC' }),
      cursor: Date.UTC(2026, 0, 5, 5, 30),
      outstanding: [],
      nextFireAt: null,
    });
    const scheduler = new ChoreScheduler({ triggers: h.triggers, clock: h.clock, persistence, logger: h.logger });
    scheduler.setChores(h.runner.chore('demo') ? [h.runner.chore('demo')!] : []);
    await scheduler.start();
    scheduler.stop();
    const run = await h.ended('demo');
    assert.equal(run.status, 'succeeded', run.reason ?? '');
    const body = firstRequest(server);
    assert.match(body, /scheduled for 2026-01-05T06:00:00.000Z/);
    assert.match(body, /This fire was missed by 3 hours/);
  });

  it('an on-time cron fire does not claim to be late', async () => {
    h = await open(choresFrom(yaml('trigger: { cron: "0 9 * * *", timezone: UTC }')));
    server.script([end]);
    const persistence = new InMemorySchedulePersistence();
    persistence.save({
      choreId: 'demo',
      cronKey: cronKey({ cron: '0 9 * * *', timezone: 'UTC' }),
      cursor: Date.UTC(2026, 0, 5, 8, 59),
      outstanding: [],
      nextFireAt: null,
    });
    const scheduler = new ChoreScheduler({ triggers: h.triggers, clock: h.clock, persistence, logger: h.logger });
    scheduler.setChores([h.runner.chore('demo')!]);
    await scheduler.start();
    scheduler.stop();
    await h.ended('demo');
    const body = firstRequest(server);
    assert.match(body, /scheduled for 2026-01-05T09:00:00.000Z/);
    assert.doesNotMatch(body, /missed by/);
  });

  it('merges the kinds of change of one path within a burst', () => {
    assert.equal(mergeChange('created', 'changed'), 'created');
    assert.equal(mergeChange('created', 'deleted'), 'deleted');
    assert.equal(mergeChange('deleted', 'created'), 'changed');
    assert.equal(mergeChange('changed', 'changed'), 'changed');
    assert.equal(mergeChange('changed', 'deleted'), 'deleted');
  });
});
