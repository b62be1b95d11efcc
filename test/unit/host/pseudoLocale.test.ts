import { standIn } from '../support/vscodeStandIn';
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { TaskView } from '../../../src/core/engine/types';
import { Attention } from '../../../src/host/attention';
import { ChoresTree } from '../../../src/host/views/choresTree';
import type { ChoreNode } from '../../../src/host/views/choresTree';
import { StorageTree } from '../../../src/host/views/storageTree';
import type { StorageItem } from '../../../src/shared/storageWords';
import { McpTree } from '../../../src/host/views/mcpTree';
import type { McpHostStatus } from '../../../src/host/mcp/mcpHost';
import type { ApprovalView } from '../../../src/shared/approvalProtocol';
import type { ChoreView } from '../../../src/shared/choreProtocol';
import { silentLogger, systemClock } from '../../../src/core/ports';
import type { TaskEvent, TaskEventKind } from '../../../src/core/engine/types';
import { presentSteps } from '../../../src/host/stepPresenter';
import { openApprovalLink } from '../../../src/host/approvals/approvalLinks';
import { openResumeLink } from '../../../src/host/chores/resumeLinks';
import type { ResumeLinkTargets } from '../../../src/host/chores/resumeLinks';
import { STOPPED_BY_YOU } from '../../../src/core/engine/taskLifecycle';
import { storageDocument } from '../../../src/shared/storageWords';
import { AgentSidebarBackend } from '../../../src/host/sidebarBackend';
import type { SidebarRuntime } from '../../../src/host/sidebarBackend';
import type { ModelProvider } from '../../../src/host/modelProvider';
import { toEditApprovalView } from '../../../src/host/approvals/approvalViews';
import { toCommandApprovalView } from '../../../src/host/execution/commandHost';
import type { CommandApproval } from '../../../src/core/approval/commands/commandApproval';
import { describeOutcome } from '../../../src/core/approval/changes/changeSetReview';
import { RunawayGuard } from '../../../src/core/engine/caps';
import { approvalMessage } from '../../../src/core/engine/triggerPayloads';
import { englishLeft, pseudo } from '../../support/pseudoLocale';
import { commandApproval, pendingChangeSet, staleChangeSet } from '../support/approvalFixtures';

// Issue 42: under a pseudo-locale (every message of l10n/bundle.l10n.json accented and bracketed,
// as a translation would replace it), the status bar, its hover, the Chores view's rows and the
// Storage view's rows, kinds, rules and sizes, Show Storage's document, approval cards' titles, a task's step
// rows (its pauses too) show no English of Tasklane's own, nor do the values put
// into a translated message (a cost's "estimated"). The values here (names, ids, triggers, paths)
// are written without letters so whatever English is left is Tasklane's. The sidebar's page is
// test/unit/webview/pseudoLocale.test.ts.

const l10n = vscode.l10n as { t: (message: string, ...args: unknown[]) => string };
const english = l10n.t;

/** Each string a surface shows, with what is left in English once translations are taken out. */
function left(shown: Array<[string, string | undefined]>): string[] {
  return shown.flatMap(([where, text]) => {
    const rest = englishLeft(text ?? '');
    return rest.length ? [`${where}: ${rest.join(' ')} in ${JSON.stringify(text)}`] : [];
  });
}

/** Every kind of thing the Storage view and Show Storage list, in bytes, kilobytes and megabytes. */
const STORAGE: StorageItem[] = (() => {
  const sizes = [3, 3_000, 3_000_000];
  const kept = (i: number) => ({ where: '１', count: 2, bytes: sizes[i % sizes.length]! });
  return [
    ...(['hot', 'triggerHistory', 'events', 'scratch', 'deadLetters'] as const).map((key, i) => ({ key, days: 7, ...kept(i) })),
    ...(['session', 'task', 'chore_run', 'approval', 'command_approval', 'ledger'] as const).map((kind, i) => ({
      key: 'archive' as const,
      archive: { kind, hotRows: 1, damaged: i % 2 },
      days: 7,
      ...kept(i),
    })),
    { key: 'memory', name: '１', ...kept(1) },
    { key: 'file', name: '２', ...kept(2) },
  ];
})();

describe('localisation: host surfaces under a pseudo-locale', () => {
  beforeEach(() => {
    standIn.reset();
    l10n.t = (message, ...args) => english(pseudo(message), ...args);
  });
  afterEach(() => {
    l10n.t = english;
  });

  it('the status bar, its hover, its accessible name and the badge', () => {
    const view = {
      visible: false,
      current: { badge: undefined } as unknown as vscode.WebviewView,
      onDidChangeVisibility: () => ({ dispose: () => undefined }),
      showSession: async () => undefined,
    };
    const attention = new Attention(view, silentLogger);
    const task = (id: string, patch: Partial<TaskView>) =>
      ({
        id,
        sessionId: 's-1',
        name: '１２',
        status: 'running',
        paused: false,
        waitingForUser: false,
        counters: { actions: { used: 1, limit: 2 } },
        ...patch,
      }) as TaskView;
    const shown = (): Array<[string, string | undefined]> => {
      const item = standIn.statusItems.at(-1)!;
      const tooltip = item.tooltip as string | { value: string };
      return [
        ['text', String(item.text)],
        ['tooltip', typeof tooltip === 'string' ? tooltip : tooltip.value],
        ['accessible name', (item.accessibilityInformation as { label: string }).label],
        ['command title', (item.command as { title: string }).title],
        ['badge', (view.current as { badge?: { tooltip: string } }).badge?.tooltip],
      ];
    };
    attention.seed([], []);
    const idle = left(shown());
    attention.onAgentChange({ type: 'task', task: task('t-1', {}) } as Parameters<Attention['onAgentChange']>[0]);
    const working = left(shown());
    attention.onAgentChange({ type: 'task', task: task('t-2', { paused: true, pauseReason: 'budget' }) } as Parameters<Attention['onAgentChange']>[0]);
    attention.onAgentChange({ type: 'task', task: task('t-3', { waitingForUser: true }) } as Parameters<Attention['onAgentChange']>[0]);
    const approval = {
      id: 'a-1',
      taskId: 't-1',
      sessionId: 's-1',
      kind: 'edits',
      title: '１',
      status: 'pending',
      files: [{ path: '１/２', kind: 'modify', added: 1, removed: 1 }],
      createdAt: 1,
    };
    attention.onHostMessage({ type: 'approvalPatch', approval: approval as ApprovalView });
    attention.onHostMessage({ type: 'approvalPatch', approval: { ...approval, id: 'a-2', kind: 'command', command: '１２', choreId: '７' } as ApprovalView });
    const waiting = left(shown());
    assert.match(
      String(standIn.statusItems.at(-1)!.tooltip && (standIn.statusItems.at(-1)!.tooltip as { value: string }).value),
      /⟦.*１２/,
      'the hover lists what waits',
    );
    attention.dispose();
    assert.deepEqual([...idle, ...working, ...waiting], []);
  });

  it("the Chores view's rows, a chore waiting for Enable with its detail lines, the Storage view's dead letters, the MCP servers view", async () => {
    const chore = {
      id: '７',
      name: '１２',
      trigger: '⏰',
      enabled: false,
      consent: 'needed',
      costNote: '＄',
      nextFireAt: 0,
      recentRuns: [
        {
          id: 'r-2',
          choreId: '７',
          status: 'checks_failed',
          startedAt: 2_000,
          endedAt: 5_000,
          reason: '９',
          usage: { iterations: 1, inputTokens: 2, outputTokens: 3, cost: 0.01, costEstimated: true },
        },
        { id: 'r-1', choreId: '７', status: 'skipped', startedAt: 1_000, usage: { iterations: 0, inputTokens: 0, outputTokens: 0, cost: 0 } },
      ],
      review: {
        definitionHash: 'h',
        prompt: '１２',
        actionSets: ['１'],
        skills: [],
        skillBodies: [{ name: '１' }, { name: '２', body: '３' }],
        budget: '１',
        escalation: [],
        mcp: ['１'],
        policy: '１',
      },
    } as unknown as ChoreView;
    const tree = new ChoresTree();
    tree.attach({ list: async () => [chore], run: () => undefined, onDidPost: () => ({ dispose: () => undefined }) });
    const shown: Array<[string, string | undefined]> = [];
    const add = (item: vscode.TreeItem) =>
      shown.push(
        ['label', String(item.label)],
        ['description', item.description as string | undefined],
        ['tooltip', item.tooltip as string | undefined],
        ['accessible name', item.accessibilityInformation?.label],
      );
    const rows = await tree.getChildren();
    for (const row of rows) {
      add(tree.getTreeItem(row));
      for (const child of await tree.getChildren(row as ChoreNode)) add(tree.getTreeItem(child));
    }
    tree.dispose();
    const storage = new StorageTree();
    storage.attach({ storage: async () => STORAGE, deadLetters: () => 3 });
    for (const row of await storage.getChildren()) {
      add(storage.getTreeItem(row));
      for (const child of await storage.getChildren(row)) add(storage.getTreeItem(child));
    }
    storage.dispose();
    const mcp = new McpTree();
    const server = (name: string, patch: Partial<McpHostStatus>): McpHostStatus =>
      ({
        name,
        source: 'workspace',
        transport: 'stdio',
        target: '１',
        hash: 'h',
        trusted: true,
        state: 'ready',
        tools: 3,
        consent: 'chore',
        ...patch,
      }) as McpHostStatus;
    mcp.attach({
      status: () => [
        server('１', { trustedFor: [{ chore: '７', tools: ['８'] }] }),
        server('２', { state: 'crashed', failedAt: 'exit', lastError: '９', source: 'user', consent: 'user' }),
        server('３', { state: 'untrusted', trusted: false, consent: 'needed' }),
      ],
      onDidChange: () => ({ dispose: () => undefined }),
    });
    for (const row of mcp.getChildren()) {
      add(mcp.getTreeItem(row));
      for (const child of mcp.getChildren(row)) add(mcp.getTreeItem(child));
    }
    mcp.dispose();
    assert.ok(shown.length > 30, `only ${shown.length} strings seen`);
    // The dates are the person's own locale's (toLocaleString), not Tasklane's words.
    const dates = /\d{1,2}\/\d{1,2}\/\d{4}, \d{1,2}:\d{2}:\d{2}|\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b|\b[AP]M\b/g;
    assert.deepEqual(left(shown.map(([where, text]) => [where, text?.replace(dates, '')])), []);
    assert.ok(
      shown.some(([where, text]) => where === 'label' && text?.includes('⟦çhéçks fáíléd⟧')),
      'a run row was seen',
    );
  });
  it('Show Storage’s document: its title, table headings, sizes, kinds and rules', () => {
    const lines = storageDocument(STORAGE, vscode.l10n).split('\n');
    assert.ok(lines.length > STORAGE.length, 'a row for each thing kept');
    assert.deepEqual(left(lines.map((line, i) => [`line ${i + 1}`, line])), []);
    for (const unit of ['{0} B', '{0} KB', '{0} MB'])
      assert.ok(
        lines.some((line) =>
          pseudo(unit)
            .split('{0}')
            .every((part) => line.includes(part)),
        ),
        `${unit} is used`,
      );
  });

  it("an approval card's title and the frame of its reason, for edits and each kind of command", () => {
    const set = (files: number) => pendingChangeSet(Array.from({ length: files }, () => '１/２'));
    const command = (patch: Partial<CommandApproval>) => toCommandApprovalView(commandApproval(patch));
    // These paths and settings give no policy reason; approvalReasonsPseudo.test.ts shows each of those.
    const views = [
      toEditApprovalView(set(1), '７', { autoApproveEdits: true }),
      toEditApprovalView(set(2), undefined, { autoApproveEdits: true }),
      command({}),
      command({ status: 'running' }),
      command({ kind: 'task' }),
      command({ kind: 'mcp', input: '{}' }),
      command({ kind: 'mcp', input: '{}', hints: ['３'] }),
    ];
    assert.deepEqual(
      left(
        views.flatMap((view, i): Array<[string, string | undefined]> => [
          [`${i} title`, view.title],
          [`${i} reason`, view.reason],
        ]),
      ),
      [],
    );
    assert.ok(views[0]!.reason?.startsWith(pseudo('Asks because: {0}').split('{0}')[0]!), 'the chore run asks');
  });

  it('why an approval link or a resume link is refused', async () => {
    const none = async () => undefined;
    // The stand-in's Uri has no authority: a link is what the handler reads of one.
    const link = (id: string) => ({ authority: 'tasklane.tasklane', path: '/approval', query: `id=${id}` }) as unknown as vscode.Uri;
    const nothing = { openProposal: none, commandApprovals: async () => [], ownsCommand: async () => false, showSession: none };
    await openApprovalLink(link('1-2'), 'tasklane.tasklane', nothing);
    await openApprovalLink(link('1-3'), 'tasklane.tasklane', {
      ...nothing,
      openProposal: async () => ({ opened: false as const, status: '１' }),
    });
    await openResumeLink('4-5', { run: () => undefined } as unknown as ResumeLinkTargets);
    assert.equal(standIn.notices.length, 3, JSON.stringify(standIn.notices));
    assert.deepEqual(left(standIn.notices.map((n): [string, string] => ['refusal', n.message])), []);
  });

  it('the sidebar while the store is still opening says so in the person’s language', async () => {
    const models = { status: async () => ({ provider: '１', model: '２' }) } as unknown as ModelProvider;
    const state = (await new AgentSidebarBackend({ current: undefined, problem: undefined } as unknown as SidebarRuntime, models, () => true).viewState())();
    assert.deepEqual(left([['store problem', state.storeProblem]]), []);
    assert.ok(state.storeProblem, 'the banner says something');
  });

  it("a task's step rows in the thread, each kind of action from its start to each way it ends", async () => {
    let seq = 0;
    const ev = (kind: TaskEventKind, data: Record<string, unknown>): TaskEvent => ({ seq: ++seq, at: seq, kind, data });
    // An action's start, then its end with `output` (or `error`): the rows of both.
    const action = (name: string, input: Record<string, unknown>, end?: { output?: string; error?: string; notRun?: unknown }) => {
      const callId = `c${seq}`;
      return [ev('action_start', { callId, name, input }), ...(end ? [ev('action_end', { callId, name, durationMs: 5, ...end })] : [])];
    };
    const approved = 'The change was approved and applied: １.';
    // The core's own account of each: tool calls the caps left unrun (over the per-turn cap, over
    // the budget left), a change set gone stale (one file of each kind of change), as it words them.
    const notRun = (
      [
        [{ maxActionsPerTurn: 2 }, 50],
        [{}, 2],
      ] as const
    ).flatMap(([caps, actions]) => {
      const guard = new RunawayGuard({ caps: () => caps, clock: systemClock, logger: silentLogger, tasks: () => [] });
      const allowed = guard.actionsAllowed(5, { actionCount: 0, limits: { actions } } as Parameters<RunawayGuard['actionsAllowed']>[1]);
      return [
        ev('warning', { text: `3 tool call(s) of one response were not run: ${allowed.refused}`, notRun: { count: 3, ...allowed.why } }),
        ...action('read_file', { path: '１' }, { error: allowed.refused, notRun: allowed.why }),
      ];
    });
    const stale = await staleChangeSet();
    const invalid = '１';
    const events = [
      ...action('read_file', { path: '１', startLine: 2 }),
      ...action('read_file', { path: '１' }, { output: '２' }),
      ...action('read_file', { path: '１' }, { error: '３' }),
      ...action('list_files', { dir: '.' }),
      ...action('list_files', { dir: '１' }, { output: '２\n３' }),
      ...action('list_files', { dir: '.' }, { output: '２' }),
      ...action('search_text', { query: '１' }),
      ...action('search_text', { query: '１' }, { output: '２\n  1: ３' }),
      ...['create_file', 'delete_file', 'rename_file', 'write_file'].flatMap((name) => [
        ...action(name, { path: '１', newPath: '２' }),
        ...action(name, { path: '１', newPath: '２' }, { output: '３' }),
        ...action(name, { path: '１', newPath: '２' }, { error: '３' }),
      ]),
      ...action('write_file', { path: '１' }, { output: approved }),
      ...action('rename_symbol', { symbol: '１', newName: '２' }),
      ...action('rename_symbol', { symbol: '１', newName: '２' }, { output: approved }),
      ...action('read_git', { what: '１', path: '２' }),
      ...action('read_git', { what: '１' }, { output: '３' }),
      ...action('run_command', { command: '１' }),
      ...action('run_command', { command: '１' }, { output: '`１` exited with code 0 in 1523 ms.' }),
      ...action('run_command', { command: '１' }, { output: '`１` exited with code 2 in 15 ms.' }),
      ...action('run_command', { command: '１' }, { output: '`１` was stopped after the 60 s timeout.' }),
      ...action('run_command', { command: '１' }, { output: '`１` was cancelled by the user.' }),
      ...action('run_task', { name: '１' }, { output: 'Asked the user to approve it.' }),
      ...action('ask_user', { question: '１' }, { output: '２' }),
      ...action('task_start', { name: '１' }, { output: 'started task t-9' }),
      ...action('wait', { seconds: 5 }, { output: '２' }),
      ...action('remember', {}, { output: '２' }),
      ...['update_todos', 'task_end', 'send_message'].flatMap((name) => action(name, {}, { error: '３' })),
      ...action('mcp_１_２', {}, { output: '３' }),
      ...action('３', {}, { output: '４' }),
      ev('user_message', { text: '１' }),
      ev('user_message', { text: `Approval cs-1: approved (${approved})` }),
      ev('user_message', { text: 'Approval cs-2: approved (`１` exited with code 0 in 15 ms.)' }),
      ev('user_message', { text: 'Approval cs-3: approved (２)' }),
      ev('user_message', { text: 'Approval cs-4: rejected (The change was rejected: １. Nothing was written.)' }),
      ev('user_message', { text: 'Approval cs-5: rejected (The change was rejected: no reason given. Nothing was written.)' }),
      ev('user_message', { text: 'Approval cs-6: rejected (２)' }),
      ev('user_message', { text: 'Approval cs-7: approved (The change was not applied: １.)' }),
      // Each way a task pauses, with the core's own (English) text for its transcript.
      ...(['actions', 'tokens', 'cost'] as const).map((kind) =>
        ev('warning', { text: `80% of the ${kind} budget is used (1/2). Wrap up: finish the current step, summarise, and call task_end.`, nearBudget: kind }),
      ),
      ev('pause', { reason: 'budget', text: 'Budget reached (actions 50/50). Continue raises the limit; Cancel ends the task.' }),
      ev('pause', { reason: 'stopped', text: STOPPED_BY_YOU }),
      ev('pause', { reason: 'model_error', text: '１. Fix it, then press Continue.' }),
      ...notRun,
      // Calls not run because the person stopped the task, or because others of the turn were invalid.
      ...action('read_file', { path: '１' }, { error: 'Not run: the user stopped the task.', notRun: { code: 'stopped' } }),
      ...action(
        'read_file',
        { path: '１' },
        {
          error: 'Not run because other calls of this turn were invalid; call it again with the corrected ones.',
          notRun: { code: 'invalid_siblings' },
        },
      ),
      ev('user_message', { text: approvalMessage({ approvalId: 'cs-8', decision: 'rejected', note: describeOutcome(stale) }), stale: stale.staleFiles }),
      // The model's tool calls invalid twice: the error and the pause, their own account as data.
      ev('error', { text: `Invalid tool calls after a repair turn: ${invalid}`, invalidToolCalls: invalid }),
      ev('pause', {
        reason: 'model_error',
        text: `The model sent invalid tool calls twice (${invalid}). Continue retries; Cancel ends the task.`,
        invalidToolCalls: invalid,
      }),
      ev('resume', {}),
      ev('restart', {}),
      ev('error', { text: '' }),
      ev('check', { key: 'k', command: '１' }),
      ev('check', { key: 'k', command: '１', ok: true, durationMs: 1500 }),
      ev('check', { key: 'l', command: '１', ok: false, gist: '２', durationMs: 15 }),
    ];
    const rows = [...presentSteps('t-1', events, vscode.l10n), ...presentSteps('t-1', events.slice(0, 1), vscode.l10n)];
    const shown: Array<[string, string | undefined]> = rows.flatMap((row) => [
      [`${row.id} text`, row.text.map((part) => (typeof part === 'string' ? part : part.code)).join('')] as [string, string],
      [`${row.id} note`, row.note] as [string, string | undefined],
    ]);
    assert.ok(rows.length > 50, `only ${rows.length} rows`);
    assert.deepEqual(left(shown), []);
  });
});
