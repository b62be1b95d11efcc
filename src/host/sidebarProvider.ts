import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { AttachmentView } from '../shared/contextProtocol';
import type { HostMessage, ViewState } from '../shared/protocol';
import { webviewMessageSchema } from '../shared/protocol';
import { GESTURE_WORDS, SHOWN_IN_VIEW } from '../shared/sidebarApi';
import { isSidebarMethod } from '../shared/sidebarSchemas';
import type { Logger } from '../core/ports';
import type { SidebarHandlers } from './sidebarHandlers';
import { answerRequest } from './sidebarHandlers';
import { sendFailure } from './sendFailure';
import { notice } from './notice';
import { translateWebviewWords } from '../shared/webviewWords';
import { WORDS_ISLAND_ID } from '../shared/viewConstants';

/** What the sidebar needs from the rest of the extension. */
export interface SidebarBackend {
  /**
   * The full state, sent when the webview (re)loads: fetches what needs a round trip; the returned
   * function reads the rest at the moment `init` is posted.
   */
  viewState(): Promise<() => ViewState>;
  /** The answer to each request (src/host/sidebarHandlers.ts). */
  readonly handlers: SidebarHandlers;
}

/**
 * The `tasklane.sidebar` webview view. Its content is built from dist/webview.js, dist/codicon.css
 * (with its font) and media/sidebar.css only (localResourceRoots), behind a CSP that allows no remote source and only
 * the one script with this load's nonce. Every incoming message is validated with zod: the
 * webview shows model and workspace text and must be treated as untrusted.
 */
export class SidebarProvider implements vscode.WebviewViewProvider {
  static readonly viewType = 'tasklane.sidebar';
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private readonly visibilityListeners = new Set<() => void>();
  /** Attachments waiting for the view to load (Add to Tasklane before the view existed). */
  private pendingAttachments: AttachmentView[] = [];
  /** What to show once the view has loaded (a session, a new chat, the history; asked for before it existed). */
  private pendingShow: HostMessage | undefined;
  /** The sidebar's words in English, by key (l10n/webview.words.json). */
  private catalog: Record<string, string> | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly backend: SidebarBackend,
    private readonly logger: Logger,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    view.webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
    view.webview.html = this.html(view.webview);
    view.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw));
    view.onDidChangeVisibility(() => this.visibilityChanged());
    view.onDidDispose(() => {
      this.view = undefined;
      this.ready = false;
      this.visibilityChanged();
    });
    this.visibilityChanged();
  }

  /** Post an incremental update; dropped while the view is not loaded (it gets `init` when it is). */
  post(message: HostMessage): void {
    if (this.view && this.ready) void this.view.webview.postMessage(message);
  }

  /** Whether the view is on screen (attention uses it: no notification for what the person sees). */
  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  /** Called when the view appears, hides or is created or disposed. */
  onDidChangeVisibility(listener: () => void): vscode.Disposable {
    this.visibilityListeners.add(listener);
    return new vscode.Disposable(() => this.visibilityListeners.delete(listener));
  }

  private visibilityChanged(): void {
    // The view does not retain its context: hiding it destroys its page, and showing it again
    // loads a fresh one that says `ready` before anything posted to it can be honoured. Until then
    // a message would reach a page that is still loading, and its `init` would undo it.
    if (this.view && !this.view.visible) this.ready = false;
    this.flushPendingSession();
    for (const listener of this.visibilityListeners) listener();
  }

  /** The view, once VS Code has created it (for its badge). */
  get current(): vscode.WebviewView | undefined {
    return this.view;
  }

  /**
   * Reveals the sidebar on `sessionId`'s conversation without taking focus from the editor when
   * the view exists; otherwise opens it (VS Code creates the view then) and selects the session
   * once it has loaded.
   */
  async showSession(sessionId: string): Promise<void> {
    await this.show({ type: 'showSession', sessionId });
  }

  /** Reveals the view and has it show `message`'s part: a session or a new chat. */
  async show(message: Extract<HostMessage, { type: 'showSession' | 'view.newChat' }>): Promise<void> {
    // Kept until a loaded, visible view has it: showing a hidden view may reload its page.
    this.pendingShow = message;
    if (this.view) {
      this.view.show(true);
      this.flushPendingSession();
      return;
    }
    await vscode.commands.executeCommand(`${SidebarProvider.viewType}.focus`);
  }

  private flushPendingSession(): void {
    if (!this.pendingShow || !this.view?.visible || !this.ready) return;
    this.post(this.pendingShow);
    this.pendingShow = undefined;
  }

  /** Adds a chip to the composer (Add to Tasklane), opening the view if needed. */
  async attach(attachment: AttachmentView): Promise<void> {
    if (this.view && this.ready) {
      this.view.show(true);
      this.post({ type: 'contextAttached', attachment });
      return;
    }
    this.pendingAttachments.push(attachment);
    await vscode.commands.executeCommand(`${SidebarProvider.viewType}.focus`);
  }

  /** Refreshes started so far; the newest is the only one that posts. */
  private refreshes = 0;

  /** Re-send the whole state (e.g. after trust or the store's state changed). */
  async refresh(): Promise<void> {
    if (!this.view || !this.ready) return;
    const generation = ++this.refreshes;
    const state = await this.backend.viewState();
    // Refreshes overlap (the page's `ready`, the store opening, trust granted) and their round trips
    // take different times: only the newest may post, or a slow one started before the store opened
    // would land last and put "Starting…" over a running turn, with no sessions and no Stop.
    if (generation !== this.refreshes || !this.view || !this.ready) return;
    await this.view.webview.postMessage({ type: 'init', state: state() } satisfies HostMessage);
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = webviewMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(
        'HOST',
        `Ignored an invalid message from the sidebar: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
      return;
    }
    const message = parsed.data;
    if (message.type === 'ready') {
      try {
        this.ready = true;
        await this.refresh();
        this.flushPendingSession();
        for (const attachment of this.pendingAttachments.splice(0)) this.post({ type: 'contextAttached', attachment });
      } catch (error) {
        this.logger.error('HOST', 'The sidebar could not be given its state', error);
      }
      return;
    }
    const { id, method } = message;
    if (!isSidebarMethod(method)) {
      this.logger.warn('HOST', `Ignored a sidebar request for an unknown method ${method.slice(0, 100)}`);
      return;
    }
    try {
      this.post(await answerRequest(this.backend.handlers, id, method, message.params));
    } catch (error) {
      this.logger.error('HOST', `Sidebar request ${method} failed`, error);
      const text = method === 'send' ? sendFailure(error) : error instanceof Error ? error.message : String(error);
      // The reply goes to the request that failed; the webview shows it where the person acted.
      this.post({ type: 'reply', id, method, ok: false, error: text });
      // A gesture the webview has no place to explain fails in view of the person too, not only in the log.
      if (!SHOWN_IN_VIEW.has(method)) void vscode.window.showErrorMessage(notice`Tasklane: ${GESTURE_WORDS[method] ?? 'that'} did not work: ${text}`);
    }
  }

  private html(webview: vscode.Webview): string {
    const nonce = randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'sidebar.css'));
    // The codicon font (copied into dist/ by esbuild.js): the state icons, as VS Code draws them.
    const codicons = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'codicon.css'));
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    // The catalog `npm run l10n` writes from src/shared/webviewWords.ts, read once per window.
    this.catalog ??= JSON.parse(fs.readFileSync(vscode.Uri.joinPath(this.extensionUri, 'l10n', 'webview.words.json').fsPath, 'utf8')) as Record<string, string>;
    const words = translateWebviewWords(vscode.l10n, this.catalog);
    // The page's words as data, not script: the CSP runs no inline script, and `<` is escaped so no
    // translation can close the element early.
    const island = JSON.stringify(words).replace(/</g, '\\u003c');
    return `<!DOCTYPE html>
<html lang="${escapeHtml(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${codicons}">
<link rel="stylesheet" href="${style}">
<title>Tasklane</title>
</head>
<body>
<header id="header">
<h1 class="visually-hidden">${escapeHtml(words.pageHeading)}</h1>
<div id="banner"></div>
<h2 id="current-session" class="conversation-title"></h2>
</header>
<div id="dead-letters"></div>
<main id="conversation" aria-label="${escapeHtml(words.conversation)}">
<section id="tasks" aria-label="${escapeHtml(words.tasks)}" tabindex="0"></section>
<section id="trace-area" aria-label="${escapeHtml(words.traceList)}" hidden></section>
<section id="transcript" role="log" aria-live="polite" aria-label="${escapeHtml(words.messages)}" tabindex="0"></section>
</main>
<footer id="composer">
<div id="reply-target"></div>
<div id="attachments" role="list" aria-label="${escapeHtml(words.attachedContext)}"></div>
<vscode-textarea id="chat-input" placeholder="${escapeHtml(words.composerPlaceholder)}" rows="3" resize="vertical" aria-label="${escapeHtml(words.composerInput)}"></vscode-textarea>
<vscode-button id="send">${escapeHtml(words.send)}</vscode-button>
</footer>
<script type="application/json" id="${WORDS_ISLAND_ID}">${island}</script>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }
}

/** Text for the page's HTML, as text or in a quoted attribute: translations are data, never markup. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
