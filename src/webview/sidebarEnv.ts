/** What the sidebar page (sidebarApp.ts) is given and what it gives back. */
import type { HostMessage, WebviewMessage } from '../shared/protocol';
import type { ComposerState } from './composer';

/** What survives the view being hidden or reloaded (the rest comes back with `init`). */
export interface Persisted extends ComposerState {
  /** The task whose details are open, and the session they were opened from. */
  traceTaskId?: string;
  traceSessionId?: string;
}

/** What the page is given. */
export interface SidebarEnv {
  /** The page's elements (#transcript, #chat-input…, as the host's HTML has them). */
  root: ParentNode;
  /** Posts to the host (the webview API's postMessage). */
  post(message: WebviewMessage): void;
  /** The persisted state (kept across hide/show and reload), changed in place; `save` writes it. */
  persisted: Persisted;
  save(): void;
}

/** The page once started: the host's messages go to `onMessage`. */
export interface SidebarPage {
  onMessage(message: HostMessage): void;
  /** The webview window got the focus. */
  focused(): void;
}
