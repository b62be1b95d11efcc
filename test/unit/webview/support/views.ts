/** The task and approval a webview test starts from (a running task, a pending one-file edit); each test overrides what it is about. */
import type { ApprovalView } from '../../../../src/shared/approvalProtocol';
import type { TaskView } from '../../../../src/shared/protocol';

export const taskView = (over: Partial<TaskView> = {}): TaskView => ({
  id: 't-1',
  sessionId: 't-1',
  name: 'Add greetAll',
  mode: 'simple',
  status: 'running',
  todos: [],
  counters: { actions: 2, tokens: 5600, cost: 0 },
  budget: { actions: 50, tokens: 500_000 },
  waitingForUser: false,
  paused: false,
  ...over,
});

export const approvalView = (over: Partial<ApprovalView> = {}): ApprovalView => ({
  id: 'cs-1',
  taskId: 't-1',
  sessionId: 't-1',
  kind: 'edits',
  title: 'Edit 1 file',
  status: 'pending',
  files: [{ path: 'src/greet.js', kind: 'modify', added: 6, removed: 1 }],
  reason: 'Asks because: edits need approval',
  createdAt: 1,
  ...over,
});
