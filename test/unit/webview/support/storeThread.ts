import type { HostMessage, TaskView } from '../../../../src/shared/protocol';
import { approvalTaskId } from '../../../../src/webview/approvalStore';
import type { Request } from '../../../../src/webview/requests';
import { askForBlock } from '../../../../src/webview/storeAsks';
import { Thread } from '../../../../src/webview/thread';
import type { ThreadDeps } from '../../../../src/webview/thread';
import type { StoreEvent, ViewStoreState } from '../../../../src/webview/viewStore';
import { blockView, emptyState, reduce } from '../../../../src/webview/viewStore';

/**
 * A Thread drawn from a real view store, wired as the page wires it (sidebarApp.ts): the host's
 * messages go to the store and the blocks they touch are redrawn; Approve and Reject go to the
 * store, whose requests storeAsks.ts makes. `tasks` are known from the start.
 */
export function storeThread(request: Request, tasks: TaskView[], over: Partial<ThreadDeps> = {}) {
  let state: ViewStoreState = { ...emptyState(), tasks: Object.fromEntries(tasks.map((t) => [t.id, t])) };
  const taskShown = (taskId: string) => thread.taskChanged(taskId);
  const dispatch = (event: StoreEvent) => {
    const step = reduce(state, event);
    state = step.state;
    for (const ask of step.asks) if (ask.method === 'gesture' || ask.method === 'decide') askForBlock(ask, { request, dispatch, taskShown });
  };
  const thread: Thread = new Thread({
    request,
    view: (taskId) => blockView(state, taskId),
    openDetails: () => undefined,
    follow: (change) => change(),
    decide: (approval, decision, reason) => {
      dispatch({ type: 'decide', approvalId: approval.id, decision, ...(reason ? { reason } : {}) });
      taskShown(approval.taskId);
    },
    ...over,
  });
  return {
    thread,
    /** A host message as the page takes it: the store first, then the block of the task it is about. */
    push(message: HostMessage): void {
      const taskId =
        message.type === 'approvalPatch'
          ? message.approval.taskId
          : message.type === 'approvalRemoved'
            ? approvalTaskId(state, message.id)
            : message.type === 'taskPatch'
              ? message.task.id
              : undefined;
      if (message.type === 'init') thread.reset();
      dispatch(message);
      if (!thread.onMessage(message) && taskId) taskShown(taskId);
    },
    get state(): ViewStoreState {
      return state;
    },
  };
}
