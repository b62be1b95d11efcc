import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { ciProblems } from '../../../src/cli/ciValidate';
import { cronChore, githubChore } from '../../support/ciChores';
import { cli, makeRepo } from '../../support/ciRepo';

/** A chores.yaml of one github chore whose trigger is `trigger` (flow YAML). */
const githubYaml = (trigger: string, extra = '') =>
  `chores:\n  - id: review\n    name: Review\n    trigger: { github: ${trigger} }\n    prompt: Review it.\n${extra}`;

describe('cli: chores validate runs the checks ci github makes', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const validate = async (yaml: string) => {
    const dir = makeRepo(yaml);
    dirs.push(dir);
    return cli(['chores', 'validate', '--workspace', dir]);
  };

  it("a github chore the workflow cannot express is an error (exit 2) with the generator's own message", async () => {
    const seconds = await validate(githubYaml('{ event: schedule, cron: "30 0 2 * * *" }'));
    assert.equal(seconds.code, 2, seconds.out);
    assert.match(seconds.err, /error: on CI: chore review: "30 0 2 \* \* \*" fires on seconds/);
    const month = await validate(githubYaml('{ event: issues }', '    budget: { maxCostUsdPerMonth: 5 }\n'));
    assert.equal(month.code, 2, month.out);
    assert.match(month.err, /error: on CI: chore review: budget\.maxCostUsdPerMonth is not counted on CI/);
  });

  it('a cron chore CI cannot schedule is a warning (exit 0): it still runs in VS Code', async () => {
    const seconds = await validate('chores:\n  - id: nightly\n    name: Nightly\n    trigger: { cron: "30 0 2 * * *" }\n    prompt: Tidy.\n');
    assert.equal(seconds.code, 0, seconds.err);
    assert.match(seconds.out, /warning: on CI: chore nightly: "30 0 2 \* \* \*" fires on seconds.* \(the chore still runs in VS Code/);
    // A daylight-saving zone is no problem: the workflow keeps it with timezone: (githubWorkflow.ts).
    for (const zone of ['UTC', 'Europe/Paris']) {
      const fine = await validate(`chores:\n  - id: nightly\n    name: Nightly\n    trigger: { cron: "0 2 * * *", timezone: ${zone} }\n    prompt: Tidy.\n`);
      assert.equal(fine.code, 0, fine.err);
      assert.match(fine.out, /1 chore\(s\), no problems/);
    }
  });

  it('checks across chores: two dispatch chores declaring one input differently', () => {
    const a = githubChore('a', { event: 'workflow_dispatch', inputs: { target: { type: 'string', required: true } } });
    const b = githubChore('b', { event: 'workflow_dispatch', inputs: { target: { type: 'boolean', required: false } } });
    assert.deepEqual(ciProblems([a]), []);
    assert.deepEqual(ciProblems([a, b]), [
      { severity: 'error', message: 'on CI: chores a and b declare the workflow_dispatch input "target" differently; one workflow has one form.' },
    ]);
    assert.deepEqual(ciProblems([cronChore('nightly'), a]), []);
  });
});
