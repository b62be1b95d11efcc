import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { ChoreScheduler } from '../../../src/core/chores/choreScheduler';
import { InMemorySchedulePersistence } from '../../../src/core/chores/schedulePersistence';
import { TaskTriggerMatcher } from '../../../src/core/chores/taskTriggers';
import { appendChore, serializeChore } from '../../../src/core/chores/choreSerialize';
import { ciChoreTemplates } from '../../../src/core/chores/templates';
import { choreDefinitionHash } from '../../../src/core/consent/definitionHash';
import type { ChoreDiagnostic } from '../../../src/core/chores/types';
import { FakeClock } from '../../fakes/fakeClock';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { FakeTriggerStore } from './choreFakes';

/** The contract example of issue 24, verbatim apart from the comments. */
const contract = `chores:
  - id: triage
    name: Triage new issues
    trigger:
      github:
        event: issues
        types: [opened]
        labels: [needs-triage]
    actors: { roles: [admin, maintain, write], bots: [] }
    prompt: Label the issue and ask for what is missing.
    outputs:
      labels: { allowed: [bug, docs, question], max: 3 }
      comment: { max: 1 }
`;

const errors = (d: ChoreDiagnostic[]) => d.filter((x) => x.severity === 'error');
const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

/** A one-chore file whose github trigger (and extra keys) are given as YAML lines. */
function githubChore(trigger: string[], extra: string[] = []): string {
  return [
    'chores:',
    '  - id: gh',
    '    name: GH',
    '    prompt: p',
    '    trigger:',
    '      github:',
    ...trigger.map((l) => `        ${l}`),
    ...extra.map((l) => `    ${l}`),
    '',
  ].join('\n');
}

function refused(text: string, needle: string, message: RegExp): void {
  const result = parseChoresFile(text);
  assert.equal(result.chores.length, 0, 'the chore is disabled');
  const found = errors(result.diagnostics);
  assert.ok(
    found.some((d) => message.test(d.message) && d.line === lineOf(text, needle)),
    `expected ${message} on line ${lineOf(text, needle)}, got ${JSON.stringify(found)}`,
  );
}

describe('chores: github triggers, actors and outputs in chores.yaml', () => {
  it('loads the contract example with its defaults filled in', () => {
    const result = parseChoresFile(contract);
    assert.deepEqual(result.diagnostics, []);
    const [chore] = result.chores;
    assert.deepEqual(chore.trigger, { kind: 'github', github: { event: 'issues', types: ['opened'], labels: ['needs-triage'] } });
    assert.deepEqual(chore.actors, { roles: ['admin', 'maintain', 'write'], bots: [] });
    assert.deepEqual(chore.outputs, { labels: { allowed: ['bug', 'docs', 'question'], max: 3 }, comment: { max: 1 } });
  });

  it('fills safe defaults: the activity types, the actor gate, fork pull requests skipped', () => {
    const pr = parseChoresFile(githubChore(['event: pull_request'], ['outputs: { review: {} }']));
    assert.deepEqual(errors(pr.diagnostics), []);
    assert.deepEqual(pr.chores[0].trigger, { kind: 'github', github: { event: 'pull_request', types: ['opened', 'ready_for_review'], forks: 'skip' } });
    assert.deepEqual(pr.chores[0].actors, { roles: ['admin', 'maintain', 'write'], bots: [] });
    assert.deepEqual(pr.chores[0].outputs, { review: { max: 1 } });
    const sync = parseChoresFile(githubChore(['event: pull_request', 'synchronize: true']));
    assert.deepEqual((sync.chores[0].trigger as { github: { types: string[] } }).github.types, ['opened', 'ready_for_review', 'synchronize']);
  });

  it('refuses pull_request_target and says why, on its line', () => {
    refused(githubChore(['event: pull_request_target']), 'event: pull_request_target', /pull_request_target is refused: it runs with write access and secrets/);
  });

  it('refuses the events that need a filter without it, naming the line', () => {
    refused(githubChore(['event: repository_dispatch']), 'event: repository_dispatch', /repository_dispatch needs types/);
    refused(githubChore(['event: workflow_run', 'workflows: [CI]']), 'event: workflow_run', /workflow_run needs workflows: .* and branches:/);
    refused(githubChore(['event: workflow_run', 'branches: [main]']), 'event: workflow_run', /workflow_run needs workflows/);
    refused(githubChore(['event: issue_comment']), 'event: issue_comment', /issue_comment needs command/);
    refused(githubChore(['event: issue_comment', 'command: Triage!']), 'command: Triage!', /command must use only a-z, 0-9 and -/);
    refused(githubChore(['event: schedule']), 'event: schedule', /schedule needs cron/);
    refused(githubChore(['event: issues', 'command: triage']), 'command: triage', /command only applies to issue_comment/);
  });

  it('refuses "*" in roles or bots, an unknown role, a non-draft pull request', () => {
    refused(githubChore(['event: issues'], ['actors: { roles: [admin, "*"] }']), 'actors:', /actors.roles may not contain "\*"/);
    refused(githubChore(['event: issues'], ['actors: { roles: [owner] }']), 'actors:', /"owner" is not a role/);
    refused(githubChore(['event: issues'], ['actors: { trustedRoles: ["*"] }']), 'actors:', /actors.trustedRoles may not contain "\*"/);
    refused(githubChore(['event: issues'], ['actors: { bots: ["*"] }']), 'actors:', /exact login/);
    refused(
      githubChore(['event: workflow_run', 'workflows: [CI]', 'branches: [main]'], ['outputs:', '  pullRequest: { draft: false }']),
      'pullRequest:',
      /draft must be true/,
    );
    refused(githubChore(['event: issues'], ['outputs:', '  labels: { allowed: [bug], max: 50 }']), 'labels:', /max must be at most 10/);
  });

  it('refuses text GitHub would evaluate or read as a new line', () => {
    refused(githubChore(['event: issues', 'labels: ["${{ github.token }}"]']), 'labels:', /contains "\$\{\{"/);
    refused(githubChore(['event: workflow_run', 'workflows: ["CI\\u2028- run: curl x|sh"]', 'branches: [main]']), 'workflows:', /line-break/);
  });

  it('keeps actors and maxFiresPerItem to github chores and outputs to chores that run on CI; maxFiresPerHour holds for any chore', () => {
    const text = 'chores:\n  - id: a\n    name: A\n    trigger: { cron: "0 2 * * *" }\n    prompt: p\n    outputs: { pullRequest: {} }\n';
    assert.deepEqual(parseChoresFile(text).chores[0].outputs, { pullRequest: { draft: true } }, 'a cron chore on CI may open a draft pull request');
    refused(text.replace('cron: "0 2 * * *"', 'files: "src/**"'), 'outputs:', /outputs only applies to a chore that runs on CI/);
    refused(text.replace('outputs: { pullRequest: {} }', 'actors: { roles: [admin] }'), 'actors:', /actors only applies to a chore with trigger: \{ github/);
    // A cron fire is about no issue or pull request: the error says so, and what caps a cron chore instead.
    refused(
      text.replace('outputs: { pullRequest: {} }', 'budget: { maxFiresPerItem: 2 }'),
      'maxFiresPerItem',
      /^budget\.maxFiresPerItem only applies to a github trigger: it counts fires per issue or pull request, and a cron fire is about none; remove it \(budget\.maxFiresPerHour caps how often a chore fires\)$/,
    );
    // A cron chore fires on CI (schedule, Run workflow) and in VS Code (schedule, Run Chore Now): both count its fires per hour.
    const hourly = parseChoresFile(text.replace('outputs: { pullRequest: {} }', 'budget: { maxFiresPerHour: 2, maxCostUsdPerDay: 1 }'));
    assert.deepEqual(errors(hourly.diagnostics), []);
    assert.equal(hourly.chores[0].maxFiresPerHour, 2);
    const files = text.replace('cron: "0 2 * * *"', 'files: "src/**"');
    const filesHourly = parseChoresFile(files.replace('outputs: { pullRequest: {} }', 'budget: { maxFiresPerHour: 2 }'));
    assert.deepEqual(errors(filesHourly.diagnostics), []);
    assert.equal(filesHourly.chores[0].maxFiresPerHour, 2, 'a files chore keeps its hour cap');
    refused(files.replace('outputs: { pullRequest: {} }', 'budget: { maxFiresPerItem: 2 }'), 'maxFiresPerItem', /a local fire is about none; remove it/);
  });

  it('puts trigger.github, actors and outputs in the definition hash; spelling out a default does not change it', () => {
    const hashOf = (text: string) => {
      const result = parseChoresFile(text);
      assert.deepEqual(errors(result.diagnostics), [], text);
      return choreDefinitionHash(result.chores[0]);
    };
    const base = hashOf(contract);
    assert.equal(hashOf(contract.replace('    actors: { roles: [admin, maintain, write], bots: [] }\n', '')), base, 'the default gate is the same gate');
    assert.equal(hashOf(contract.replace('roles: [admin, maintain, write]', 'roles: [write, admin, maintain]')), base, 'role order means nothing');
    for (const [what, changed] of [
      ['the labels filter', contract.replace('labels: [needs-triage]', 'labels: [bug]')],
      ['the types', contract.replace('types: [opened]', 'types: [opened, labeled]')],
      ['the roles', contract.replace('roles: [admin, maintain, write]', 'roles: [admin, maintain, write, triage]')],
      ['the bots', contract.replace('bots: []', 'bots: ["dependabot[bot]"]')],
      ['the label allowlist', contract.replace('allowed: [bug, docs, question]', 'allowed: [bug, docs, question, wontfix]')],
      ['an output kind', contract.replace('comment: { max: 1 }', 'comment: { max: 1 }\n      issue: { max: 2 }')],
      ['fires per item', `${contract}    budget: { maxFiresPerItem: 3 }\n`],
    ] as const) {
      assert.notEqual(hashOf(changed), base, `${what} is in the hash`);
    }
  });

  it('writes a github chore that loads back to the same definition', () => {
    const spec = {
      id: 'fix-build',
      name: 'Fix the failing build',
      trigger: { github: { event: 'workflow_run', workflows: ['CI'], branches: ['main'] } },
      prompt: 'Fix it.',
      actors: { roles: ['admin', 'write'] as Array<'admin' | 'write'> },
      outputs: { pullRequest: { draft: true as const } },
    };
    const text = `chores:\n${serializeChore(spec)}`;
    const result = parseChoresFile(text);
    assert.deepEqual(result.diagnostics, [], text);
    assert.deepEqual(result.chores[0].trigger, {
      kind: 'github',
      github: { event: 'workflow_run', types: ['completed'], workflows: ['CI'], branches: ['main'] },
    });
    assert.deepEqual(result.chores[0].outputs, { pullRequest: { draft: true } });
  });

  it('is described by the JSON Schema too (accepts the contract, refuses pull_request_target and a missing filter)', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../schemas/chores.schema.json'), 'utf8')) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    assert.equal(validate(parse(contract)), true, JSON.stringify(validate.errors));
    assert.equal(validate(parse(githubChore(['event: pull_request_target']))), false);
    assert.equal(validate(parse(githubChore(['event: workflow_run', 'workflows: [CI]']))), false);
    assert.equal(validate(parse(githubChore(['event: issues'], ['actors: { roles: ["*"] }']))), false);
  });

  it('never fires a github chore locally: the scheduler and the task matcher ignore it', async () => {
    const text = githubChore(['event: schedule', 'cron: "* * * * *"', 'timezone: UTC'], []).replace(
      'chores:\n',
      'chores:\n  - { id: t, name: T, prompt: p, trigger: { task: { name: build } } }\n',
    );
    const [task, gh] = parseChoresFile(text).chores;
    const github = { ...gh, trigger: { kind: 'github' as const, github: { event: 'workflow_run' as const, workflows: ['build'], branches: ['main'] } } };
    const clock = new FakeClock(Date.parse('2026-03-04T21:30:00Z'));
    const scheduler = new ChoreScheduler({
      triggers: new FakeTriggerStore(),
      clock,
      persistence: new InMemorySchedulePersistence(),
      logger: new MemoryLogger(),
    });
    scheduler.setChores([gh]);
    assert.equal(scheduler.nextFireAt(gh.id), undefined, 'a github schedule is not a local cron');
    const matcher = new TaskTriggerMatcher();
    matcher.configure([task, github]);
    assert.deepEqual(await matcher.match({ name: 'build', exitCode: 1 }), ['t']);
  });

  it('ships the four CI templates, each loading without a diagnostic and valid under the JSON Schema', () => {
    assert.deepEqual(
      ciChoreTemplates.map((t) => t.key),
      ['triage-issues', 'review-dependency-updates', 'errors-into-issues', 'fix-failing-build'],
    );
    let text = '';
    for (const template of ciChoreTemplates) text = appendChore(text, template.spec);
    const result = parseChoresFile(text);
    assert.deepEqual(result.diagnostics, [], text);
    const byId = new Map(result.chores.map((c) => [c.id, c]));
    assert.deepEqual(byId.get('triage-issues')?.outputs, {
      labels: { allowed: ['bug', 'documentation', 'enhancement', 'question'], max: 2 },
      comment: { max: 1 },
    });
    assert.deepEqual(byId.get('review-dependency-updates')?.actors, { roles: ['admin', 'maintain', 'write'], bots: ['dependabot[bot]', 'renovate[bot]'] });
    assert.deepEqual(byId.get('errors-into-issues')?.trigger, { kind: 'github', github: { event: 'schedule', cron: '0 6 * * *', timezone: 'UTC' } });
    assert.deepEqual(byId.get('fix-failing-build')?.commands, ['npm test'], 'the test command is its only command');
    assert.deepEqual(byId.get('fix-failing-build')?.outputs, { pullRequest: { draft: true } });
    for (const c of result.chores) assert.equal(c.trigger.kind, 'github');
    const schema = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../schemas/chores.schema.json'), 'utf8')) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    assert.equal(validate(parse(text)), true, JSON.stringify(validate.errors));
  });
});
