import * as vscode from 'vscode';
import type { ViewState } from '../shared/protocol';
import type { SidebarBackend } from './sidebarProvider';
import type { ModelProvider } from './modelProvider';
import type { SidebarHandlerParts, SidebarHandlers, SidebarRuntime } from './sidebarHandlers';
import { sidebarHandlers } from './sidebarHandlers';

export type { SidebarRuntime, SidebarSections } from './sidebarHandlers';
import { toDeadLetterView, toSessionView, toTaskView } from './viewMapping';

/** Answers the sidebar: the initial state, and each request through one handler table. */
export class AgentSidebarBackend implements SidebarBackend {
  constructor(
    private readonly runtime: SidebarRuntime,
    private readonly models: ModelProvider,
    private readonly trusted: () => boolean,
    parts: SidebarHandlerParts = {},
  ) {
    this.handlers = sidebarHandlers(runtime, parts);
  }

  /** The answer to each request of the sidebar (src/shared/sidebarApi.ts). */
  readonly handlers: SidebarHandlers;

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
      return () => ({ ...base, approvals: [], sessions: [], tasks: [], deadLetters: [], storeProblem: this.runtime.problem ?? vscode.l10n.t('Starting…') });
    }
    // Side by side: the view's first paint waits for both (the model status may ask SecretStorage,
    // a round trip of its own). The Chat view lists no conversations (the History quick pick
    // does): it gets the sessions with live work, their transcript tails in memory or a turn
    // running, with their rows (a task's lane names its conversation); the conversation it shows
    // is asked for with `sessions.open`.
    const [model, approvals] = await Promise.all([this.models.status(), services.approvals.list()]);
    return () => {
      const snapshot = services.agent.views.snapshot();
      return {
        model,
        restricted: !this.trusted(),
        approvals,
        sessions: snapshot.sessions.filter((s) => s.messages.length > 0 || s.liveTurnId).map((s) => toSessionView(s, snapshot.tasks)),
        tasks: snapshot.tasks.map((task) => toTaskView(task, services.changeSets?.edits(task.id))),
        deadLetters: snapshot.deadLetters.map(toDeadLetterView),
      };
    };
  }
}
