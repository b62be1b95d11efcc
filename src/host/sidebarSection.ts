import type { ApprovalHostMessage } from '../shared/approvalProtocol';
import type { ChoreHostMessage } from '../shared/choreProtocol';

/**
 * What the store-time services publish: approval cards (the sidebar draws them; attention counts
 * them) and chores with their runs (the Chores tree and attention follow them; the sidebar does
 * not, so they are not part of its protocol).
 */
export type ServiceMessage = ApprovalHostMessage | ChoreHostMessage;

/**
 * A part of the extension with its own state and gestures, owned by its subsystem (the chores).
 * A module of its own: the subsystems implement it without importing the sidebar backend, which
 * imports the store services that build them (no import cycle).
 */
export interface SidebarSection<View, Message> {
  list(): Promise<View[]>;
  handle(message: Message): Promise<unknown>;
}
