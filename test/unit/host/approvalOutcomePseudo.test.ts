import { standIn } from '../support/vscodeStandIn';
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ChangeSet } from '../../../src/core/approval/changes/changeSet';
import { describeOutcome, NO_REJECT_REASON } from '../../../src/core/approval/changes/changeSetReview';
import { toEditApprovalView } from '../../../src/host/approvals/approvalViews';
import { confirmApproval } from '../../../src/host/approvals/approvalCommands';
import type { ConsentDialogs } from '../../../src/host/consentDialog';
import { toCommandApprovalView } from '../../../src/host/execution/commandHost';
import { englishLeft, pseudo } from '../../support/pseudoLocale';
import { commandApproval, pendingChangeSet, staleChangeSet } from '../support/approvalFixtures';

// Issue 42: a decided change set's outcome on its card, and the Approve modal (its question, its
// button and the detail of what would run or change), under a pseudo-locale show no English of
// Tasklane's own (a stale set's list of the files that changed too). The values (paths, the
// person's reason) are written without letters.

const l10n = vscode.l10n as { t: (message: string, ...args: unknown[]) => string };
const english = l10n.t;

const decided = (status: ChangeSet['status'], patch: Partial<ChangeSet> = {}): ChangeSet => {
  const set = pendingChangeSet(['１/２', '３/４']);
  return { ...set, status, files: [set.files[0]!, { ...set.files[1]!, kind: 'rename', newPath: '５', decision: 'reject' }], ...patch };
};

const OUTCOMES: Array<[string, ChangeSet]> = [
  ['applied', decided('applied')],
  ['partly applied', decided('partially_applied')],
  ['rejected with a reason', decided('rejected', { reason: '６' })],
  ['rejected without one', decided('rejected', { reason: NO_REJECT_REASON })],
  ['stale', decided('stale', { reason: '６' })],
  ['stale without a reason', decided('stale')],
  ['reverted', decided('reverted')],
  ['approved, not yet written', decided('approved')],
];

describe('localisation: approval outcomes and the Approve modal under a pseudo-locale', () => {
  beforeEach(() => {
    standIn.reset();
    l10n.t = (message, ...args) => english(pseudo(message), ...args);
  });
  afterEach(() => {
    l10n.t = english;
  });

  it('a decided change set’s outcome on its card, each way it ends; the model still reads English', async () => {
    const stale = await staleChangeSet();
    assert.equal(stale.status, 'stale');
    const shown = [...OUTCOMES, ['stale, files changed on disk', stale] as const].map(
      ([name, set]) => [name, toEditApprovalView(set, undefined, { autoApproveEdits: true }).reason ?? ''] as const,
    );
    assert.deepEqual(
      shown.flatMap(([name, text]) => (englishLeft(text).length ? [`${name}: ${englishLeft(text).join(' ')} in ${JSON.stringify(text)}`] : [])),
      [],
    );
    assert.ok(shown.every(([, text]) => text.startsWith('⟦')));
    // The core's account for the task is untouched by the locale.
    assert.equal(describeOutcome(decided('applied')), 'The change was approved and applied: １/２.');
    assert.equal(describeOutcome(decided('rejected', { reason: NO_REJECT_REASON })), `The change was rejected: ${NO_REJECT_REASON}. Nothing was written.`);
    assert.equal(
      describeOutcome(stale),
      'The change was not applied: nothing was applied because these files changed on disk since the proposal: １ (modified), ２ (deleted), ３ (created); read them again and propose the edit anew.',
    );
  });

  it('the Approve modal’s question, button and detail for edits (kept and left out) and a command', async () => {
    const asked: string[] = [];
    const dialogs = {
      confirm: async (question: string, detail: string, action: string) => (asked.push(question, detail, action), false),
    } as unknown as ConsentDialogs;
    const edits = toEditApprovalView({ ...decided('pending'), status: 'pending' }, '７', { autoApproveEdits: true });
    await confirmApproval(dialogs, edits);
    await confirmApproval(dialogs, toCommandApprovalView(commandApproval({ why: { code: 'commandNotAllowed' } })));
    assert.equal(asked.length, 6);
    assert.deepEqual(
      asked.flatMap((text, i) => (englishLeft(text).length ? [`${i}: ${englishLeft(text).join(' ')} in ${JSON.stringify(text)}`] : [])),
      [],
    );
  });
});
