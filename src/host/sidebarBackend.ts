import * as vscode from 'vscode';
import type { ApprovalView, ApprovalWebviewMessage } from '../shared/approvalProtocol';
import type { ChoreView, ChoreWebviewMessage } from '../shared/choreProtocol';
import type { HostMessage, ViewState, WebviewMessage } from '../shared/protocol';
import type { SidebarBackend } from './sidebarProvider';
import type { ModelProvider } from './modelProvider';
import type { Runtime } from './runtime';
import { toDeadLetterView, toSessionView, toTaskView, toTraceEvent } from './viewMapping';

const TRACE_PAGE = 200;

/** A part of the sidebar with its own state and messages (`<prefix>.*`), owned by its subsystem. */
export interface SidebarSection<View, Message> {
  list(): Promise<View[]>;
  handle(message: Message): Promise<HostMessage | undefined>;
}

export interface SidebarSections {
  approvals?: SidebarSection<ApprovalView, ApprovalWebviewMessage>;
  chores?: SidebarSection<ChoreView, ChoreWebviewMessage>;
}

/** Answers the sidebar: the initial state, and each user gesture as a call on the agent. */
export class AgentSidebarBackend implements SidebarBackend {
  constructor(
    private readonly runtime: Runtime,
    private readonly models: ModelProvider,
    private readonly sections: SidebarSections = {},
  ) {}

  async viewState(): Promise<ViewState> {
    const model = await this.models.status();
    const base = {
      model,
      restricted: !vscode.workspace.isTrusted,
      approvals: (await this.sections.approvals?.list()) ?? [],
      chores: (await this.sections.chores?.list()) ?? [],
    };
    const parts = this.runtime.current;
    if (!parts) {
      return { ...base, sessions: [], tasks: [], deadLetters: [], storeProblem: this.runtime.problem ?? 'Starting…' };
    }
    const snapshot = parts.agent.snapshot();
    return {
      ...base,
      sessions: snapshot.sessions.map((s) => toSessionView(s, snapshot.tasks)),
      tasks: snapshot.tasks.map(toTaskView),
      deadLetters: snapshot.deadLetters.map(toDeadLetterView),
    };
  }

  async handle(message: Exclude<WebviewMessage, { type: 'ready' }>): Promise<HostMessage | undefined> {
    if (message.type.startsWith('approval.')) return this.section('approvals').handle(message as ApprovalWebviewMessage);
    if (message.type.startsWith('chore.')) return this.section('chores').handle(message as ChoreWebviewMessage);
    switch (message.type) {
      case 'send': {
        const { agent } = await this.runtime.ready;
        const { sessionId } = await agent.sendMessage(message.text, { sessionId: message.sessionId, replyToTaskId: message.replyToTaskId });
        return { type: 'sendResult', requestId: message.requestId, ok: true, sessionId };
      }
      case 'continueTask':
        await (await this.runtime.ready).agent.continueTask(message.taskId);
        return undefined;
      case 'abortTask':
        await (await this.runtime.ready).agent.abortTask(message.taskId);
        return undefined;
      case 'cancelTask':
        await (await this.runtime.ready).agent.cancelTask(message.taskId);
        return undefined;
      case 'loadTrace': {
        const { agent } = await this.runtime.ready;
        const events = await agent.readTaskEvents(message.taskId, { beforeSeq: message.beforeSeq, limit: TRACE_PAGE + 1 });
        const hasMore = events.length > TRACE_PAGE;
        return { type: 'tracePage', taskId: message.taskId, events: events.slice(-TRACE_PAGE).map(toTraceEvent), hasMore };
      }
      case 'retryDeadLetter': {
        const { triggers, agent } = await this.runtime.ready;
        await triggers.retryDead(message.triggerId);
        return { type: 'deadLetters', deadLetters: agent.snapshot().deadLetters.map(toDeadLetterView) };
      }
      case 'command': {
        const command = { setApiKey: 'tasklane.setApiKey', selectModel: 'tasklane.selectModel', showLog: 'tasklane.showLog', manageTrust: 'workbench.trust.manage' }[message.command];
        await vscode.commands.executeCommand(command);
        return undefined;
      }
    }
    return undefined;
  }

  private section<K extends keyof SidebarSections>(name: K): NonNullable<SidebarSections[K]> {
    const section = this.sections[name];
    if (!section) throw new Error(`The ${name} part of Tasklane is not available in this build.`);
    return section;
  }
}
