import * as vscode from 'vscode';
import type { ApprovalView, ApprovalWebviewMessage } from '../shared/approvalProtocol';
import type { ChoreView, ChoreWebviewMessage } from '../shared/choreProtocol';
import type { ReplyWebviewMessage } from '../shared/replyProtocol';
import type { AttachmentView } from '../shared/contextProtocol';
import { withAttachments } from '../shared/contextProtocol';
import type { HostMessage, ViewState, WebviewMessage } from '../shared/protocol';
import type { SessionWebviewMessage } from '../shared/sessionProtocol';
import { firstSessionPage, handleSessionMessage } from './sessionListBackend';
import type { SidebarBackend } from './sidebarProvider';
import type { ModelProvider } from './modelProvider';
import type { StoreServices } from './storeServices';
import { toDeadLetterView, toListSummary, toSessionView, toTaskView, toTraceEvent } from './viewMapping';
import { presentSteps } from './stepPresenter';
import type { SidebarSection } from './sidebarSection';
import { notice } from '../core/security/surfaceText';

export type { SidebarSection };

const TRACE_PAGE = 200;
/** Events read for a task's step rows when its block is drawn (a task's whole story, as a rule). */
const STEP_EVENTS = 2000;

/** The sections the sidebar shows next to the sessions, owned by the store-time services. */
export interface SidebarSections {
  approvals: SidebarSection<ApprovalView, ApprovalWebviewMessage>;
  chores: SidebarSection<ChoreView, ChoreWebviewMessage>;
}

/** What the backend reads: the services once the store is open, and why it is not (yet). */
export interface SidebarRuntime {
  /** Resolves with the services once the store is open (gestures wait for it). */
  readonly ready: Promise<SidebarSections & Pick<StoreServices, 'agent'>>;
  /** The services if the store is open already (the initial state does not wait for it). */
  readonly current: (SidebarSections & Pick<StoreServices, 'agent'> & Partial<Pick<StoreServices, 'mcp'>>) | undefined;
  readonly problem: string | undefined;
}

/** Answers the sidebar: the initial state, and each user gesture as a call on the agent. */
export class AgentSidebarBackend implements SidebarBackend {
  constructor(
    private readonly runtime: SidebarRuntime,
    private readonly models: ModelProvider,
    private readonly trusted: () => boolean,
    private readonly parts: {
      /** A rendered reply's links and code-block buttons (src/host/reply/replyActions.ts). */
      replies?: { handle(message: ReplyWebviewMessage): Promise<HostMessage | undefined> };
      /** The `@` context picker (src/host/context/contextPicker.ts). */
      context?: { pick(): Promise<AttachmentView | undefined> };
    } = {},
  ) {}

  /**
   * The whole state for `init`, in two steps: what needs a round trip is fetched first, and the
   * returned function reads the in-memory rest (transcript tails, live turns, tasks, dead letters)
   * when it is called. The provider calls it right before posting, so an `init` never carries a
   * snapshot older than an update already posted (a `turnState` sent while the round trips ran
   * would otherwise be undone, leaving a running turn without Stop).
   */
  async viewState(): Promise<() => ViewState> {
    const services = this.runtime.current;
    if (!services) {
      const base = { model: await this.models.status(), restricted: !this.trusted() };
      return () => ({ ...base, approvals: [], sessions: [], tasks: [], deadLetters: [], storeProblem: this.runtime.problem ?? 'Starting…' });
    }
    // Side by side: the view's first paint waits for all of them (the model status may ask
    // SecretStorage, a round trip of its own). The first page of the list only (newest first);
    // the webview asks for more as it scrolls and for a session's transcript when it opens one.
    // Tails already in memory (live work) come along.
    const [model, page, approvals] = await Promise.all([this.models.status(), firstSessionPage(services.agent), services.approvals.list()]);
    return () => {
      const snapshot = services.agent.views.snapshot();
      const loaded = new Map(snapshot.sessions.map((s) => [s.id, s]));
      const listed = new Set(page.sessions.map((s) => s.id));
      const newestListed = page.sessions[0]?.lastActivity ?? Number.NEGATIVE_INFINITY;
      return {
        model,
        restricted: !this.trusted(),
        approvals,
        sessions: [
          // A session started while the page was read would otherwise be missing until it changes.
          // A task's lane is shown in its conversation's row, not as one of its own.
          ...snapshot.sessions
            .filter((s) => !listed.has(s.id) && s.lastActivity > newestListed && !(s.parentId && loaded.has(s.parentId)))
            .map((s) => {
              const row = services.agent.views.listRow(s.id);
              return { ...toSessionView(s, snapshot.tasks), ...(row ? toListSummary(row) : {}) };
            }),
          ...page.sessions.map((summary) => {
            const core = loaded.get(summary.id);
            return core ? { ...toSessionView(core, snapshot.tasks), ...summary } : { ...summary, messages: [] };
          }),
        ],
        sessionsHaveMore: page.hasMore,
        tasks: snapshot.tasks.map(toTaskView),
        deadLetters: snapshot.deadLetters.map(toDeadLetterView),
      };
    };
  }

  async handle(message: Exclude<WebviewMessage, { type: 'ready' }>): Promise<HostMessage | undefined> {
    if (message.type.startsWith('approval.')) return (await this.runtime.ready).approvals.handle(message as ApprovalWebviewMessage);
    if (message.type.startsWith('reply.')) {
      if (!this.parts.replies) throw new Error('Reply actions are not available in this build.');
      return this.parts.replies.handle(message as ReplyWebviewMessage);
    }
    if (message.type.startsWith('sessions.')) return handleSessionMessage((await this.runtime.ready).agent, message as SessionWebviewMessage);
    if (message.type === 'context.pick') {
      try {
        const attachment = await this.parts.context?.pick();
        return attachment ? { type: 'contextAttached', attachment } : undefined;
      } catch (error) {
        void vscode.window.showWarningMessage(notice`Tasklane: nothing attached: ${(error as Error).message}.`);
        return undefined;
      }
    }
    switch (message.type) {
      case 'send': {
        const { agent } = await this.runtime.ready;
        const { sessionId } = await agent.sendMessage(withAttachments(message.text, message.attachments ?? []), {
          sessionId: message.sessionId,
          replyToTaskId: message.replyToTaskId,
          // The draft's id, kept by the composer across re-sends: a re-send is answered once.
          requestId: message.requestId,
        });
        return { type: 'sendResult', requestId: message.requestId, ok: true, sessionId };
      }
      case 'continueTask':
        await (await this.runtime.ready).agent.continueTask(message.taskId);
        return undefined;
      case 'cancelTask':
        await (await this.runtime.ready).agent.cancelTask(message.taskId);
        return undefined;
      case 'stop':
        await (await this.runtime.ready).agent.stop(message.sessionId);
        return undefined;
      case 'loadTrace': {
        const { agent } = await this.runtime.ready;
        const events = await agent.views.readTaskEvents(message.taskId, { beforeSeq: message.beforeSeq, limit: TRACE_PAGE + 1 });
        const hasMore = events.length > TRACE_PAGE;
        return { type: 'tracePage', taskId: message.taskId, events: events.slice(-TRACE_PAGE).map(toTraceEvent), hasMore };
      }
      case 'thread.loadSteps': {
        const { agent } = await this.runtime.ready;
        const events = await agent.views.readTaskEvents(message.taskId, { limit: STEP_EVENTS });
        return { type: 'thread.steps', taskId: message.taskId, steps: presentSteps(message.taskId, events) };
      }
      case 'retryDeadLetter':
        // The engine publishes the new list; the sidebar redraws it from that change.
        await (await this.runtime.ready).agent.deadLetters.retry([message.triggerId]);
        return undefined;
      case 'command': {
        const command = {
          setApiKey: 'tasklane.setApiKey',
          selectModel: 'tasklane.selectModel',
          showLog: 'tasklane.showLog',
          manageTrust: 'workbench.trust.manage',
          showHistory: 'tasklane.showHistory',
        }[message.command];
        await vscode.commands.executeCommand(command);
        return undefined;
      }
    }
    return undefined;
  }
}
