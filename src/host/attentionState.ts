import type { TaskView } from '../core/engine/types';
import type { ApprovalView } from '../shared/approvalProtocol';
import type { ChoreRunView } from '../shared/choreProtocol';
import { runEndWords } from '../shared/choreChartModel';
import { ENGLISH } from '../shared/translator';
import type { Translator } from '../shared/translator';

/** One thing that waits for the person. */
export interface AttentionItem {
  /** Stable per wait: the same question or card is one item however often it is re-published. */
  key: string;
  sessionId?: string;
  /** The task that waits (the status bar opens its block with `tasklane.showTask`). */
  taskId?: string;
  /**
   * What the notification says. Untrusted parts (a task or chore name, a run's reason) are made
   * inert by the notification (`notice`); a command line the model asks to run never is in it, only
   * in `detail` (review 2026-12c finding 2: the model chooses every character of it).
   */
  text: string;
  /** What the status bar's tooltip adds after `text` (an escaped Markdown list there). */
  detail?: string;
}

/** What the status bar, the view badge and the notifications show. */
export interface AttentionSummary {
  running: number;
  /** Items that wait for the person (the badge and "waiting for you: N"). */
  waiting: AttentionItem[];
}

/** Chore run endings that escalate to the person (the notification, not the count: nothing waits). */
const ESCALATING = new Set(['failed', 'checks_failed', 'budget_exhausted', 'awaiting_review']);

/**
 * What needs the person, kept from the change events the host already receives (task changes,
 * approval cards, chore runs), with no vscode import so the unit tier can test the rules:
 * a pending approval is one item (its task waiting for it is not a second one); a task's
 * question and a budget or model-error pause are items; a chore run that ends needing a person
 * is announced once.
 */
export class AttentionState {
  private readonly tasks = new Map<string, TaskView>();
  private readonly approvals = new Map<string, ApprovalView>();
  private readonly announced = new Set<string>();
  private readonly choreRuns = new Map<string, AttentionItem>();

  constructor(private readonly l10n: Translator = ENGLISH) {}

  setTask(task: TaskView): void {
    this.tasks.set(task.id, task);
  }

  setApproval(approval: ApprovalView): void {
    if (approval.status === 'pending') this.approvals.set(approval.id, approval);
    else this.approvals.delete(approval.id);
  }

  removeApproval(id: string): void {
    this.approvals.delete(id);
  }

  /** A chore run's latest state; an escalating end is announced once (and not counted). */
  setChoreRun(run: ChoreRunView, choreName: string): void {
    if (ESCALATING.has(run.status))
      this.choreRuns.set(`chore-run:${run.id}`, {
        key: `chore-run:${run.id}`,
        text: run.reason
          ? this.l10n.t('Chore “{0}” ended {1}: {2}', choreName, runEndWords(run, this.l10n), run.reason)
          : this.l10n.t('Chore “{0}” ended {1}', choreName, runEndWords(run, this.l10n)),
      });
  }

  summary(): AttentionSummary {
    const waiting: AttentionItem[] = [];
    for (const approval of this.approvals.values()) {
      const names = approval.files.map((f) => f.newPath ?? f.path);
      const files =
        (names.length > 3 ? this.l10n.t('{0} and {1} more', names.slice(0, 3).join(', '), names.length - 3) : names.join(', ')) || this.l10n.t('files');
      // One whole sentence per case, so a translation can order its words as its language does.
      const text =
        approval.kind === 'edits'
          ? approval.choreId
            ? this.l10n.t('Chore {0} proposes edits to {1}', approval.choreId, files)
            : this.l10n.t('A task proposes edits to {0}', files)
          : approval.choreId
            ? this.l10n.t('Chore {0} asks to run a command', approval.choreId)
            : this.l10n.t('A task asks to run a command');
      waiting.push({
        key: `approval:${approval.id}`,
        sessionId: approval.sessionId,
        taskId: approval.taskId,
        text,
        ...(approval.kind === 'edits' ? {} : { detail: approval.command ?? approval.title }),
      });
    }
    let running = 0;
    for (const task of this.tasks.values()) {
      if (task.status !== 'running' && !task.paused) continue;
      if (task.paused) {
        waiting.push({
          key: `pause:${task.id}:${task.pauseReason ?? ''}:${task.counters.actions.used}`,
          sessionId: task.sessionId,
          taskId: task.id,
          text:
            task.pauseReason === 'budget'
              ? this.l10n.t('“{0}” is paused (budget reached): Continue or Cancel', task.name)
              : task.pauseReason === 'stopped'
                ? this.l10n.t('“{0}” is paused (stopped by you): Continue or Cancel', task.name)
                : this.l10n.t('“{0}” is paused (model error): Continue or Cancel', task.name),
        });
      } else if (task.waitingForUser && !task.waitingForApproval) {
        waiting.push({
          key: `question:${task.id}:${task.counters.actions.used}`,
          sessionId: task.sessionId,
          taskId: task.id,
          text: this.l10n.t('“{0}” asks you something', task.name),
        });
      } else if (!task.waitingForApproval) {
        running++;
      }
    }
    return { running, waiting };
  }

  /** Items not announced before (each wait is announced once), chore escalations included. */
  takeNew(): AttentionItem[] {
    const fresh = [...this.summary().waiting, ...this.choreRuns.values()].filter((item) => !this.announced.has(item.key));
    for (const item of fresh) this.announced.add(item.key);
    this.choreRuns.clear();
    return fresh;
  }

  /** Marks everything current as seen (the person is looking at the sidebar). */
  markSeen(): void {
    this.takeNew();
  }
}
