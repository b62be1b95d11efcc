import * as assert from 'node:assert/strict';
import { budgetAcrossFires } from '../../../src/cli/fireBudget';
import { ledgerCheckName, ledgerExternalId, ledgerRecords } from '../../../src/cli/fireLedger';
import { applyFilePatch, patchFiles, protectedPathProblem } from '../../../src/cli/patchRules';
import { unifiedDiff } from '../../../src/cli/patch';

describe('cli: what a draft pull request may carry, and budgets across fires', () => {
  it('refuses workflows, .tasklane, CODEOWNERS and agent-instruction files unless declared', () => {
    for (const p of [
      '.github/workflows/ci.yml',
      '.tasklane/chores.yaml',
      'CODEOWNERS',
      '.github/CODEOWNERS',
      'AGENTS.md',
      'packages/a/CLAUDE.md',
      '.github/copilot-instructions.md',
      '.github/instructions/ts.instructions.md',
      '.cursorrules',
    ])
      assert.ok(protectedPathProblem(p), p);
    for (const p of ['src/app.ts', 'docs/agents.txt', 'README.md', '.github/ISSUE_TEMPLATE/bug.md']) assert.equal(protectedPathProblem(p), undefined, p);
    assert.match(
      protectedPathProblem('.github/workflows/ci.yml') ?? '',
      /is protected: CI workflows run code with the repository secrets \(\.github\/workflows\/\*\*\); a chore's pull request may change it only when outputs.pullRequest.paths lists it/,
    );
    assert.equal(protectedPathProblem('.github/workflows/ci.yml', ['.github/workflows/**']), undefined);
    assert.equal(protectedPathProblem('AGENTS.md', ['AGENTS.md']), undefined);
  });

  it("reads the paths from the patch itself, refuses odd ones, and rebuilds each file's content", () => {
    const patch = unifiedDiff([
      { path: 'src/a.ts', before: 'one\ntwo\n', after: 'one\n2\n' },
      { path: 'src/new.ts', before: null, after: 'new\n' },
      { path: 'old.txt', before: 'bye\n', after: null },
    ]);
    const files = patchFiles(patch);
    assert.deepEqual(
      files.map((f) => [f.path, f.kind]),
      [
        ['src/a.ts', 'changed'],
        ['src/new.ts', 'created'],
        ['old.txt', 'deleted'],
      ],
    );
    assert.equal(applyFilePatch(files[0], 'one\ntwo\n'), 'one\n2\n');
    assert.equal(applyFilePatch(files[1], undefined), 'new\n');
    assert.equal(applyFilePatch(files[2], 'bye\n'), null);
    assert.throws(() => applyFilePatch(files[0], 'something else\n'), /does not apply to the default branch/);
    assert.throws(() => patchFiles(patch.replaceAll('src/a.ts', '../a.ts')), /not a plain relative path/);
    assert.throws(
      () =>
        patchFiles(patch.replace('diff --git a/src/new.ts b/src/new.ts\nnew file mode 100644', 'diff --git a/src/new.ts b/src/new.ts\nnew file mode 120000')),
      /links/,
    );
  });

  it('counts fires per day and per item from the ledger records, ignoring stops, damaged ids and other apps', () => {
    const at = '2026-12-02T10:00:00.000Z';
    const record = (r: { chore: string; item: string; costUsd: number; at: string; stopped?: 'budget' }, slug = 'github-actions') => ({
      id: 1,
      name: ledgerCheckName(r.chore),
      external_id: ledgerExternalId(r),
      app: { slug },
    });
    const runs = [
      record({ chore: 'x', item: 'o/r#1', costUsd: 0.5, at }),
      record({ chore: 'x', item: 'o/r#1', costUsd: 0.25, at: '2026-12-01T23:00:00.000Z' }),
      record({ chore: 'x', item: 'o/r#1', costUsd: 9, at, stopped: 'budget' }),
      record({ chore: 'y', item: 'o/r#1', costUsd: 9, at }),
      record({ chore: 'x', item: 'o/r#1', costUsd: 9, at }, 'someone-elses-app'),
      { id: 2, name: ledgerCheckName('x'), external_id: '{broken' },
      // A summary that looks like the old record line is text, not a record.
      { id: 3, name: ledgerCheckName('x'), output: { summary: '<!-- tasklane:fire {"chore":"x","costUsd":0,"at":"","stopped":"gate"} -->' } },
    ];
    const records = ledgerRecords(runs, 'x');
    assert.equal(records.length, 3);
    const now = new Date('2026-12-02T12:00:00Z');
    assert.deepEqual(budgetAcrossFires({ id: 'x', spendLimits: { maxCostUsdPerDay: 1 } }, records, 'o/r#1', now), { costLeftToday: 0.5 });
    assert.equal(budgetAcrossFires({ id: 'x', spendLimits: { maxCostUsdPerDay: 0.5 } }, records, 'o/r#1', now).firstStop, false, 'a stop was recorded today');
    assert.equal(
      budgetAcrossFires(
        { id: 'x', spendLimits: { maxCostUsdPerDay: 0.5 } },
        records.filter((r) => !r.stopped),
        'o/r#1',
        now,
      ).firstStop,
      true,
    );
    assert.match(budgetAcrossFires({ id: 'x', spendLimits: { maxCostUsdPerDay: 0.5 } }, records, 'o/r#1', now).stop ?? '', /spent \$0\.5000 today/);
    assert.match(budgetAcrossFires({ id: 'x', maxFiresPerItem: 2 }, records, 'o/r#1', now).stop ?? '', /already fired 2 time\(s\) for o\/r#1/);
    assert.deepEqual(budgetAcrossFires({ id: 'x', maxFiresPerItem: 2 }, records, 'o/r#2', now), { costLeftToday: 4.5 }, 'the default day cap of $5');
  });
});
