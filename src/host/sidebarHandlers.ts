import type { AttachmentView } from '../shared/contextProtocol';
import { withAttachments } from '../shared/contextProtocol';
import type { ReplyWebviewMessage } from '../shared/replyProtocol';
import type { SidebarMethod, SidebarParams, SidebarResultReply, SidebarResults } from '../shared/sidebarApi';
import { parseParams } from '../shared/sidebarSchemas';
import type { OwnedApprovalSection } from './execution/commandHost';
import type { StoreServices } from './storeServices';
import { openSession } from './sessionListBackend';
import { lastSaid, presentSteps } from './stepPresenter';
import type { Translator } from '../shared/translator';
import { toTraceEvent } from './viewMapping';

/** The approvals the sidebar shows and decides, owned by the store-time services. */
export interface SidebarSections {
  approvals: Pick<OwnedApprovalSection, 'list' | 'handle'>;
}

/** What the backend reads: the services once the store is open, and why it is not (yet). */
export interface SidebarRuntime {
  /** Resolves with the services once the store is open (gestures wait for it). */
  readonly ready: Promise<SidebarSections & Pick<StoreServices, 'agent'>>;
  /** The services if the store is open already (the initial state does not wait for it). */
  /** `changeSets` says which tasks have edits left to revert (absent in tests without edits: none). */
  readonly current: (SidebarSections & Pick<StoreServices, 'agent'> & Partial<Pick<StoreServices, 'mcp' | 'changeSets'>>) | undefined;
  readonly problem: string | undefined;
}

const TRACE_PAGE = 200;
/** Events read for a task's step rows when its block is drawn (a task's whole story, as a rule). */
const STEP_EVENTS = 2000;

/** One request's answer: its checked params in, its typed result out; a throw is the reply's error. */
export type SidebarHandler<K extends SidebarMethod> = (params: SidebarParams[K]) => Promise<SidebarResults[K]>;

/** Every request of the API with its handler: a method without one does not compile. */
export type SidebarHandlers = { [K in SidebarMethod]: SidebarHandler<K> };

/** The host parts some requests need besides the agent. */
export interface SidebarHandlerParts {
  /** Runs a VS Code command (vscode.commands.executeCommand; a parameter so the table loads in plain Node). */
  runCommand?(command: string): PromiseLike<unknown>;
  /** A rendered reply's links and code-block buttons (src/host/reply/replyActions.ts). */
  replies?: { handle(message: ReplyWebviewMessage): Promise<unknown> };
  /** The `@` context picker (src/host/context/contextPicker.ts). */
  context?: { pick(): Promise<AttachmentView | undefined> };
  /** The step rows' words (vscode.l10n; a parameter so the table loads in plain Node, English without it). */
  l10n?: Translator;
}

/** The command each `command` request runs. */
const COMMANDS: Record<SidebarParams['command']['command'], string> = {
  setApiKey: 'tasklane.setApiKey',
  selectModel: 'tasklane.selectModel',
  showLog: 'tasklane.showLog',
  manageTrust: 'workbench.trust.manage',
  showHistory: 'tasklane.showHistory',
};

/**
 * The one handler table of the sidebar: each request as a call on the agent, the approvals or a
 * host part. Requests wait for the store to open (`runtime.ready`); the initial state does not.
 */
export function sidebarHandlers(runtime: SidebarRuntime, parts: SidebarHandlerParts): SidebarHandlers {
  const agent = async () => (await runtime.ready).agent;
  const approvals = async () => (await runtime.ready).approvals;
  const replies = (message: ReplyWebviewMessage) => {
    if (!parts.replies) throw new Error('Reply actions are not available in this build.');
    return parts.replies.handle(message).then(() => null);
  };
  return {
    send: async (p) => {
      const { sessionId } = await (
        await agent()
      ).sendMessage(withAttachments(p.text, p.attachments ?? []), {
        sessionId: p.sessionId,
        replyToTaskId: p.replyToTaskId,
        // The draft's id, kept by the composer across re-sends: a re-send is answered once.
        requestId: p.requestId,
      });
      return { sessionId };
    },
    'sessions.open': async (p) => openSession(await agent(), p.sessionId),
    'trace.load': async (p) => {
      const events = await (await agent()).views.readTaskEvents(p.taskId, { beforeSeq: p.beforeSeq, limit: TRACE_PAGE + 1 });
      return { events: events.slice(-TRACE_PAGE).map(toTraceEvent), hasMore: events.length > TRACE_PAGE };
    },
    'thread.loadSteps': async (p) => {
      const events = await (await agent()).views.readTaskEvents(p.taskId, { limit: STEP_EVENTS });
      const said = lastSaid(events);
      return { steps: presentSteps(p.taskId, events, parts.l10n), ...(said ? { said } : {}) };
    },
    'approval.approve': async (p) => (await approvals()).handle({ type: 'approval.approve', ...p }).then(() => null),
    'approval.reject': async (p) => (await approvals()).handle({ type: 'approval.reject', ...p }).then(() => null),
    'approval.openDiff': async (p) => (await approvals()).handle({ type: 'approval.openDiff', ...p }).then(() => null),
    'approval.decideFile': async (p) => (await approvals()).handle({ type: 'approval.decideFile', ...p }).then(() => null),
    'approval.revert': async (p) => (await approvals()).handle({ type: 'approval.revert', ...p }).then(() => null),
    'approval.revertTask': async (p) => (await approvals()).handle({ type: 'approval.revertTask', ...p }).then(() => null),
    'task.continue': async (p) => (await agent()).continueTask(p.taskId).then(() => null),
    'task.cancel': async (p) => (await agent()).cancelTask(p.taskId).then(() => null),
    'task.stop': async (p) => (await agent()).stopTaskAfterStep(p.taskId).then(() => null),
    'turn.stop': async (p) => (await agent()).stop(p.sessionId).then(() => null),
    // The engine publishes the new list; the sidebar redraws it from that change.
    'deadLetters.retry': async (p) => (await agent()).deadLetters.retry([p.triggerId]).then(() => null),
    command: async (p) => {
      if (!parts.runCommand) throw new Error('Commands are not available in this build.');
      await parts.runCommand(COMMANDS[p.command]);
      return null;
    },
    'context.pick': async () => {
      const attachment = await parts.context?.pick();
      return attachment ? { attachment } : {};
    },
    'reply.openLink': (p) => replies({ type: 'reply.openLink', ...p }),
    'reply.openFile': (p) => replies({ type: 'reply.openFile', ...p }),
    'reply.copy': (p) => replies({ type: 'reply.copy', ...p }),
    'reply.insert': (p) => replies({ type: 'reply.insert', ...p }),
    'reply.propose': (p) => replies({ type: 'reply.propose', ...p }),
  };
}

/**
 * Answers one request through its handler: checks its params against the method's schema (a
 * throw on bad params) and wraps the result in the reply envelope. The method's own type carries
 * the params to the handler and the result to the reply; nothing is cast.
 */
export async function answerRequest<K extends SidebarMethod>(handlers: SidebarHandlers, id: string, method: K, raw: unknown): Promise<SidebarResultReply<K>> {
  const handler: SidebarHandler<K> = handlers[method];
  return { type: 'reply', id, method, ok: true, result: await handler(parseParams(method, raw)) };
}
