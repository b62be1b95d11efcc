import * as assert from 'node:assert/strict';
import { pickTask } from '../../../src/core/approval/commands/taskPick';

describe('run_task: which task a name designates', () => {
  const task = (source: string, name: string) => ({ source, name });

  it("names the workspace's own tasks first when there is no such task, even behind many provider tasks", () => {
    const tasks = [...Array.from({ length: 40 }, (_, i) => task('npm', `script-${i}`)), task('Workspace', 'failing-build')];
    const answer = pickTask(tasks, 'no-such-task');
    assert.equal(typeof answer, 'string');
    assert.match(String(answer), /no VS Code task named 'no-such-task'; available tasks: failing-build, npm: script-0/);
  });

  it("a plain name is the workspace's task; a provider's task needs its source", () => {
    const tasks = [task('npm', 'build'), task('Workspace', 'build')];
    assert.deepEqual(pickTask(tasks, 'build'), task('Workspace', 'build'));
    assert.deepEqual(pickTask(tasks, 'npm: build'), task('npm', 'build'));
  });
});
