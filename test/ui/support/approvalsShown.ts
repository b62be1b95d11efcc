import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';

/**
 * One Approve per pending approval in the Chat view: a pending approval is shown once, in its
 * task's block (issue 36: the Review section used to repeat it below the thread).
 */
export async function assertOneApprovePerPending(frame: Frame): Promise<void> {
  const pending = await frame.locator('[data-approval-id][data-status="pending"]').count();
  const approves = await frame.locator('vscode-button.approve').count();
  assert.ok(pending > 0, 'no pending approval is shown in the Chat view');
  assert.equal(approves, pending, `${approves} Approve buttons for ${pending} pending approvals`);
  assert.equal(
    await frame.locator('#transcript .task-block .block-approval[data-status="pending"]').count(),
    pending,
    'a pending approval shown outside its task block',
  );
}
