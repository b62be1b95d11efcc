import type { HostMessage } from '../shared/protocol';

/**
 * A part of the sidebar with its own state and messages (`<prefix>.*`), owned by its subsystem.
 * A module of its own: the subsystems (chores, commands) implement it without importing the
 * sidebar backend, which imports the store services that build them (no import cycle).
 */
export interface SidebarSection<View, Message> {
  list(): Promise<View[]>;
  handle(message: Message): Promise<HostMessage | undefined>;
}
