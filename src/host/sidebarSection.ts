import type { ApprovalHostMessage } from '../shared/approvalProtocol';
import type { ChoreHostMessage } from '../shared/choreProtocol';
import type { TaskView } from '../shared/protocol';

/**
 * What the store-time services publish: approval cards (the sidebar draws them; attention counts
 * them) and chores with their runs (the Chores tree and attention follow them; the sidebar does
 * not, so they are not part of its protocol).
 */
export type ServiceMessage = ApprovalHostMessage | ChoreHostMessage | TaskRevertibleMessage;

/**
 * A task drawn again because whether it has edits left to undo changed (an approval applied, a
 * revert): the agent did not change, so its own feed says nothing. The sidebar takes it as a task patch.
 */
export interface TaskRevertibleMessage {
  type: 'taskPatch';
  task: TaskView;
}

/**
 * A part of the extension with its own state and gestures, owned by its subsystem (the chores).
 * A module of its own: the subsystems implement it without importing the sidebar backend, which
 * imports the store services that build them (no import cycle).
 */
export interface SidebarSection<View, Message> {
  list(): Promise<View[]>;
  handle(message: Message): Promise<unknown>;
}
