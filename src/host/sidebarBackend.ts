import type { ViewState } from '../shared/protocol';
import { firstSessionPage } from './sessionListBackend';
import type { SidebarBackend } from './sidebarProvider';
import type { ModelProvider } from './modelProvider';
import type { SidebarHandlerParts, SidebarHandlers, SidebarRuntime } from './sidebarHandlers';
import { sidebarHandlers } from './sidebarHandlers';

export type { SidebarRuntime, SidebarSections } from './sidebarHandlers';
import { toDeadLetterView, toListSummary, toSessionView, toTaskView } from './viewMapping';

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
        tasks: snapshot.tasks.map((task) => toTaskView(task, services.changeSets?.revertible(task.id) ?? false)),
        deadLetters: snapshot.deadLetters.map(toDeadLetterView),
      };
    };
  }
}
