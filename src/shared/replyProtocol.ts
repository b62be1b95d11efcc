/**
 * The sidebar protocol's reply part: what a rendered reply's links and code-block buttons ask the
 * host to do. (src/shared/protocol.ts joins it with the rest.) The host re-checks everything: a
 * link's scheme again, a file's place inside the workspace, and a proposed edit goes through the
 * normal approval card.
 */
import type { MethodMessage, ReplyMethod } from './sidebarApi';

/** A reply's link and code-block gestures, as the reply actions take them (the requests are in src/shared/sidebarApi.ts). */
export type ReplyWebviewMessage = MethodMessage<ReplyMethod>;
