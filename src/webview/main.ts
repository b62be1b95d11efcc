/**
 * The sidebar webview's entry point: a thin bootstrap. It registers the web components, gives
 * the page (sidebarApp.ts) the document, the webview API and the persisted state, and hands it
 * the host's messages.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { HostMessage, WebviewMessage } from '../shared/protocol';
import { SIDEBAR_SCRIPT_MARK } from '../shared/viewConstants';
import { startSidebar } from './sidebarApp';
import type { Persisted } from './sidebarApp';
import { readWords, useWords } from './words';

performance.mark(SIDEBAR_SCRIPT_MARK);

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): Persisted | undefined;
  setState(state: Persisted): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

// The words first: everything the page draws looks them up (src/webview/words.ts).
useWords(readWords(document));
const vscode = acquireVsCodeApi();
const persisted: Persisted = vscode.getState() ?? {};
const page = startSidebar({
  root: document,
  post: (message) => vscode.postMessage(message),
  persisted,
  save: () => vscode.setState(persisted),
});
window.addEventListener('message', (event: MessageEvent<HostMessage>) => page.onMessage(event.data));
// The view's focus command focuses the webview's window: the composer then takes it (sidebarApp.ts).
// Looked at after the event's task: a click that focused the window focuses what it hit first.
window.addEventListener('focus', () => setTimeout(() => page.focused(), 0));
// A view opened by its focus keybinding for the first time can have the focus before this script
// runs (the window's focus event came and went): the composer takes it now, as it would have then.
if (document.hasFocus()) setTimeout(() => page.focused(), 0);
