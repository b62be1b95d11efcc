/**
 * Issue 42: the sidebar page under a pseudo-locale. The host's page (src/host/sidebarProvider.ts)
 * is made with every message of l10n/bundle.l10n.json accented and bracketed, as a translation
 * would replace it; the page (src/webview/sidebarApp.ts) runs in happy-dom on that HTML with the
 * words the host put in it, and is shown a conversation with a task at every turn a person meets:
 * working with steps, todos and a budget, a streamed tool call, an approval of two files, paused,
 * done, the details with the trace, the banner and a dead letter. What it shows has no English of
 * Tasklane's own left. The values (names, paths, model text, errors) are written without letters,
 * so whatever English is left is Tasklane's. The session list is left out: it is being taken out of
 * the sidebar (test/unit/webview/webviewWords.test.ts, NOT_YET).
 */
import { standIn } from '../support/vscodeStandIn';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SidebarProvider } from '../../../src/host/sidebarProvider';
import type { SidebarBackend } from '../../../src/host/sidebarProvider';
import { silentLogger } from '../../../src/core/ports';
import { toMessage } from '../../../src/core/engine/engineState';
import { toMessageView } from '../../../src/host/viewMapping';
import type { HostMessage, TaskView, WebviewMessage } from '../../../src/shared/protocol';
import type { SidebarMethod } from '../../../src/shared/sidebarApi';
import { WEBVIEW_WORDS } from '../../../src/shared/webviewWords';
import type { WebviewWordKey } from '../../../src/shared/webviewWords';
import { TRIGGER_SOURCES } from '../../../src/core/store/triggerRows';
import { startSidebar } from '../../../src/webview/sidebarApp';
import type { SidebarPage } from '../../../src/webview/sidebarApp';
import { DEMO_MODEL_ID } from '../../../src/webview/demoNotice';
import { readWords, useWords } from '../../../src/webview/words';
import { englishLeft, pseudo } from '../../support/pseudoLocale';
import { useDom } from './support/dom';
import { approvalView, taskView } from './support/views';

type Request = Extract<WebviewMessage, { type: 'request' }>;

/** A link of each kind a reply does not open, the words its tooltip says, and the value in them. */
const INERT_LINKS: ReadonlyArray<[string, WebviewWordKey, string?]> = [
  ['#１', 'linkInertAnchor'],
  ['//１', 'linkInertProtocolRelative'],
  ['?１', 'linkInertQueryOnly'],
  ['%23L1', 'linkInertEmptyPath'],
  ['xyz:１', 'linkInertScheme', 'xyz'],
  ['vscode:mcp/install', 'linkInertNoExtension'],
  ['vscode://x.y/z', 'linkInertOtherExtension', 'x.y'],
];
const l10n = vscode.l10n as { t: (message: string, ...args: unknown[]) => string };
const english = l10n.t;

/** happy-dom has no IntersectionObserver: one that never reports (rows stay held, code uncoloured). */
class QuietObserver {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
  takeRecords(): [] {
    return [];
  }
}

/** The HTML the host gives the view, as VS Code would receive it. */
function hostPage(): string {
  const webview = {
    options: {},
    html: '',
    cspSource: 'vscode-webview:',
    asWebviewUri: (uri: vscode.Uri) => uri,
    onDidReceiveMessage: () => ({ dispose: () => undefined }),
    postMessage: async () => true,
  };
  const view = { webview, visible: true, onDidChangeVisibility: () => ({ dispose: () => undefined }), onDidDispose: () => ({ dispose: () => undefined }) };
  const backend = { viewState: async () => () => ({}), handlers: {} } as unknown as SidebarBackend;
  // The extension's folder is this checkout: the host reads the catalog from its l10n/.
  new SidebarProvider(vscode.Uri.file(path.resolve(__dirname, '../../..')), backend, silentLogger).resolveWebviewView(view as unknown as vscode.WebviewView);
  return webview.html;
}

/**
 * The text of every element that has text of its own (whole: a sentence with a value drawn as code
 * is one message around it), and every text attribute, by where it is; the session list and the
 * words' island left out.
 */
function shown(root: Element): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (element: Element) => {
    if (element.tagName === 'SCRIPT') return;
    const where = `${element.tagName.toLowerCase()}${element.className ? `.${String(element.className).split(' ')[0]}` : ''}`;
    for (const name of ['title', 'aria-label', 'placeholder', 'alt', 'label']) {
      const value = element.getAttribute(name);
      if (value) out.push([`${where}[${name}]`, value]);
    }
    if ([...element.childNodes].some((child) => child.nodeType === 3 && child.textContent?.trim())) out.push([where, element.textContent ?? '']);
    for (const child of element.children) walk(child);
  };
  walk(root);
  return out;
}

describe('localisation: the sidebar page under a pseudo-locale', function () {
  useDom();
  const had = Object.getOwnPropertyDescriptor(globalThis, 'IntersectionObserver');
  before(() => Object.defineProperty(globalThis, 'IntersectionObserver', { value: QuietObserver, configurable: true, writable: true }));
  after(() => {
    if (had) Object.defineProperty(globalThis, 'IntersectionObserver', had);
    else delete (globalThis as Record<string, unknown>).IntersectionObserver;
  });
  beforeEach(() => {
    standIn.reset();
    l10n.t = (message, ...args) => english(pseudo(message), ...args);
  });
  afterEach(() => {
    l10n.t = english;
    useWords(WEBVIEW_WORDS);
  });

  it('shows no English of Tasklane’s own, from the host’s HTML to a task’s details', async function () {
    const html = hostPage();
    const body = /<body>([\s\S]*)<\/body>/.exec(html)![1]!.replace(/<script nonce=[^>]*><\/script>/, '');
    document.body.innerHTML = body;
    useWords(readWords(document));
    const sent: WebviewMessage[] = [];
    const requests = (method: SidebarMethod) => sent.filter((m): m is Request => m.type === 'request' && m.method === method);
    const page: SidebarPage = startSidebar({ root: document, post: (m) => sent.push(m), persisted: { selectedSessionId: 'c-1' }, save: () => undefined });
    const reply = (request: Request, result: unknown) =>
      page.onMessage({ type: 'reply', id: request.id, method: request.method, ok: true, result } as HostMessage);
    const task = (id: string, over: Partial<TaskView>) => taskView({ id, name: `１${id.slice(2)}`, sessionId: 'c-1', ...over });
    const tasks = [
      task('t-1', {
        todos: [
          { text: '２', status: 'done' },
          { text: '３', status: 'in_progress' },
        ],
        counters: { actions: 2, tokens: 5600, cost: 0.5, costEstimated: true },
        budget: { actions: 50, tokens: 500_000, cost: 2 },
        waitingForApproval: true,
      }),
      task('t-2', { status: 'paused', paused: true, pauseReason: 'budget' }),
      task('t-8', { status: 'paused', paused: true, pauseReason: 'model_error' }),
      task('t-9', { status: 'paused', paused: true, pauseReason: 'stopped' }),
      task('t-3', { status: 'completed', finalSummary: '５' }),
      task('t-5', { status: 'completed', checks: 'verified' }),
      task('t-6', { status: 'completed', checks: 'not_checked' }),
      task('t-7', { status: 'error', checks: 'failed' }),
      task('t-4', { status: 'running' }),
    ];
    page.onMessage({
      type: 'init',
      state: {
        sessions: [
          {
            id: 'c-1',
            name: '１',
            status: 'working',
            lastActivity: 1,
            waitingForUser: false,
            pendingApprovals: 1,
            messages: [
              { role: 'user', text: '６', at: 1 },
              ...tasks.map((t) => ({ role: 'user' as const, text: '６', at: 1, taskId: t.id })),
              { role: 'assistant', text: '７\n\n```\n８\n```\n\n![](https://1/9.png) ![](９.png)', at: 2, stopped: true },
              // A link of each kind a reply may not open (its tooltip says why); values without vowels.
              { role: 'assistant', text: INERT_LINKS.map(([href], i) => `[${i}](<${href}>)`).join(' '), at: 3 },
              // The model's tool calls invalid twice, as the core stores the line and the host maps it.
              toMessageView(
                toMessage({
                  seq: 9,
                  at: 4,
                  kind: 'message',
                  data: {
                    role: 'error',
                    text: 'The model answered with invalid tool calls twice: ６',
                    at: 4,
                    retryable: true,
                    said: { code: 'invalid_tool_calls', detail: '６' },
                  },
                }),
              ),
            ],
          },
        ],
        tasks,
        approvals: [
          approvalView({
            title: '１',
            reason: '２',
            files: [
              { path: '１/２', kind: 'modify', added: 1, removed: 1 },
              { path: '３/４', kind: 'create', added: 2, removed: 0, decision: 'reject' },
            ],
          }),
          approvalView({ id: 'cs-2', taskId: 't-4', kind: 'command', command: '３', files: [], title: '３', reason: '４' }),
        ],
        // A dead letter of every trigger source the core has, and one it may add later.
        deadLetters: [...TRIGGER_SOURCES, '５'].map((source, i) => ({ id: `d-${i}`, sessionId: 'c-1', source, attempts: 3, error: '６' })),
        model: { provider: '７', model: DEMO_MODEL_ID, problem: '８' },
        restricted: true,
      },
    });
    for (const steps of requests('thread.loadSteps'))
      reply(steps, {
        steps: [
          { id: 's-1', seq: 1, rev: 1, kind: 'read', text: ['１'], state: 'done', note: '２' },
          { id: 's-2', seq: 2, rev: 2, kind: 'command', text: [{ code: '３' }], state: 'failed' },
          { id: 's-3', seq: 3, rev: 3, kind: 'edit', text: ['４'], state: 'running' },
          ...[4, 5, 6, 7].map((seq) => ({ id: `s-${seq}`, seq, rev: seq, kind: 'search' as const, text: ['５'], state: 'done' as const })),
        ],
      });
    await new Promise<void>((resolve) => setImmediate(resolve));
    // A turn of the conversation writing tool calls, and one of a task (its words go into its block).
    page.onMessage({ type: 'turnState', sessionId: 'c-1', turnId: 'turn-1', running: true });
    for (const [name, preview] of [
      ['read_file', '{"path":"１"}'],
      ['search_text', '{"query":"２"}'],
      ['run_command', '{"command":"３"}'],
      ['mcp_４_５', '{}'],
      ['６', '{}'],
    ] as const)
      page.onMessage({ type: 'streamDelta', sessionId: 'c-1', turnId: 'turn-1', delta: { kind: 'tool', callId: name, name, preview } });
    page.onMessage({ type: 'turnState', sessionId: 't-1', turnId: 'turn-2', running: true });
    page.onMessage({ type: 'streamDelta', sessionId: 't-1', turnId: 'turn-2', delta: { kind: 'text', text: '６' } });
    // A gesture in flight, the steps folded and unfolded, the reply target, the details with a trace.
    document.querySelector<HTMLElement>('[data-task-id="t-4"] .stop-task')?.click();
    document.querySelector<HTMLElement>('[data-task-id="t-4"] .reply-task')?.click();
    document.querySelector<HTMLElement>('[data-task-id="t-3"] .open-details')!.click();
    const [trace] = requests('trace.load');
    assert.ok(trace, 'Details asked for the trace');
    reply(trace, { events: [{ seq: 1, type: '７', at: 1, summary: '８', durationMs: 9 }], hasMore: false });
    await new Promise<void>((resolve) => setImmediate(resolve));

    const all = shown(document.body);
    assert.ok(all.length > 60, `only ${all.length} strings seen`);
    // The times are the person's own locale's (toLocaleTimeString), not Tasklane's words; the demo model's id is a name.
    const times = /\b\d{1,2}:\d{2}( ?[AP]M)?\b/g;
    const left = all.flatMap(([where, text]) => {
      const rest = englishLeft(text.replace(times, '').replace(DEMO_MODEL_ID, ''));
      return rest.length ? [`${where}: ${rest.join(' ')} in ${JSON.stringify(text)}`] : [];
    });
    assert.deepEqual(left, []);
    // It saw what it says it saw (a page drawn with keys, or English, would fail above; one not drawn, here).
    const text = all.map(([, t]) => t).join('\n');
    for (const message of [
      WEBVIEW_WORDS.approvalApprove,
      WEBVIEW_WORDS.gestureStopping,
      WEBVIEW_WORDS.stepsHide,
      WEBVIEW_WORDS.codeCopy,
      WEBVIEW_WORDS.stateDone,
      WEBVIEW_WORDS.stateVerified,
      WEBVIEW_WORDS.stateNotChecked,
      WEBVIEW_WORDS.stateChecksFailed,
    ])
      assert.ok(text.includes(pseudo(message)), `${message} is on the page`);
    assert.ok(text.includes(pseudo(WEBVIEW_WORDS.stepsShow).replace('{0}', '7')), 'a folded block says how many steps it holds');
    for (const key of ['pauseBudget', 'pauseModelError', 'pauseStopped'] as const)
      assert.ok(text.includes(pseudo(WEBVIEW_WORDS[key])), `${key} is on the page`);
    for (const [href, key, value] of INERT_LINKS) assert.ok(text.includes(pseudo(WEBVIEW_WORDS[key]).replace('{0}', value ?? '')), `${href} says ${key}`);
    assert.equal(document.querySelectorAll('.dead-letter').length, TRIGGER_SOURCES.length + 1);
    assert.ok(text.includes(pseudo(WEBVIEW_WORDS.triggerOther).replace('{0}', '５')), 'a source the page does not know shows as its code');
    assert.ok(text.includes(pseudo(WEBVIEW_WORDS.toolMcp).replace('{0}', '５').replace('{1}', '４')), 'a tool line, with its values');
  });
});
