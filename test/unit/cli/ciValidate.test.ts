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
    const zone = await validate(githubYaml('{ event: schedule, cron: "0 2 * * *", timezone: Europe/Paris }'));
    assert.equal(zone.code, 2, zone.out);
    assert.match(zone.err, /error: on CI: chore review: the time zone Europe\/Paris changes its UTC offset/);
    const month = await validate(githubYaml('{ event: issues }', '    budget: { maxCostUsdPerMonth: 5 }\n'));
    assert.equal(month.code, 2, month.out);
    assert.match(month.err, /error: on CI: chore review: budget\.maxCostUsdPerMonth is not counted on CI/);
  });

  it('a cron chore CI cannot schedule is a warning (exit 0): it still runs in VS Code', async () => {
    const paris = await validate(
      'chores:\n  - id: nightly\n    name: Nightly\n    trigger: { cron: "0 2 * * *", timezone: Europe/Paris }\n    prompt: Tidy.\n',
    );
    assert.equal(paris.code, 0, paris.err);
    assert.match(paris.out, /warning: on CI: chore nightly: the time zone Europe\/Paris changes its UTC offset .* \(the chore still runs in VS Code/);
    const fine = await validate('chores:\n  - id: nightly\n    name: Nightly\n    trigger: { cron: "0 2 * * *", timezone: UTC }\n    prompt: Tidy.\n');
    assert.equal(fine.code, 0, fine.err);
    assert.match(fine.out, /1 chore\(s\), no problems/);
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
