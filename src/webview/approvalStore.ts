/**
 * The approvals part of the view store (viewStore.ts): the one place the page keeps what waits for
 * the person's decision and the decisions made here that the host has not settled. The thread and
 * the blocks draw from it (`pendingOf`, `decisionLine`); they keep no approvals of their own, so
 * what a block shows and the state word it says cannot drift apart.
 *
 * The rules, tested with seeded random interleavings (test/unit/webview/viewStore.test.ts):
 * an approval is in at most one of `pending` and `deciding`; a decision leaves `pending` in the
 * event of the click and asks the host once; the host's patch settles it; only the host's refusal
 * (the request's error) puts it back, with the reason said on it until the next decision.
 */
import type { ApprovalView } from '../shared/approvalProtocol';
import type { HostMessage } from '../shared/protocol';
import { word } from './words';

export type Decision = 'approve' | 'reject';

/** A decision made here whose outcome the host has not told yet. */
export interface DecisionInFlight {
  /** The approval as last patched (a file decision may patch it while its decision is in flight). */
  approval: ApprovalView;
  decision: Decision;
}

/** The approvals' share of the view store's state. */
export interface ApprovalState {
  /** Approvals that wait for the person, by id. */
  pending: Record<string, ApprovalView>;
  /** Approvals the person decided here whose outcome the host has not told yet, by id. */
  deciding: Record<string, DecisionInFlight>;
  /** Why the host refused the last decision made here on an approval that waits again, by approval id. */
  refusals: Record<string, string>;
}

/** Approve or Reject pressed on a block (the reason typed for a rejection, if any). */
export interface DecideAction {
  type: 'decide';
  approvalId: string;
  decision: Decision;
  reason?: string;
}

/** The host refused a decision made here (the request's error, in the person's words). */
export interface RefusedEvent {
  type: 'refused';
  approvalId: string;
  reason: string;
}

/** The request a decision needs made; its failure comes back as a `refused` event. */
export interface DecideAsk {
  method: 'decide';
  approvalId: string;
  /** The task whose block shows the approval (the page redraws it when the reply comes). */
  taskId: string;
  decision: Decision;
  reason?: string;
}

export type ApprovalEvent = Extract<HostMessage, { type: 'approvalPatch' | 'approvalRemoved' }> | DecideAction | RefusedEvent;

const omit = <T>(record: Record<string, T>, key: string): Record<string, T> => {
  const { [key]: _gone, ...rest } = record;
  return rest;
};

/** `state` without any trace of approval `id` (the host settled or removed it). */
function gone<S extends ApprovalState>(state: S, id: string): S {
  return { ...state, pending: omit(state.pending, id), deciding: omit(state.deciding, id), refusals: omit(state.refusals, id) };
}

/** The approvals' reducers: a decision shows at once and asks once, the host's patch settles it, a refusal puts it back saying why. */
export function approvalStep<S extends ApprovalState>(state: S, event: ApprovalEvent): { state: S; asks: DecideAsk[] } {
  const none = { state, asks: [] };
  switch (event.type) {
    case 'approvalPatch': {
      const a = event.approval;
      if (a.status !== 'pending') return { state: gone(state, a.id), asks: [] };
      // A patch of an approval being decided (its file decisions, its problems) does not undo the click.
      const inFlight = state.deciding[a.id];
      if (inFlight) return { state: { ...state, deciding: { ...state.deciding, [a.id]: { ...inFlight, approval: a } } }, asks: [] };
      return { state: { ...state, pending: { ...state.pending, [a.id]: a } }, asks: [] };
    }
    case 'approvalRemoved':
      return { state: gone(state, event.id), asks: [] };
    case 'decide': {
      const a = state.pending[event.approvalId];
      // Not waiting (decided a moment ago, or gone): a second click asks nothing.
      if (!a) return none;
      const { decision, reason } = event;
      const next = { ...gone(state, a.id), deciding: { ...state.deciding, [a.id]: { approval: a, decision } } };
      return { state: next, asks: [{ method: 'decide', approvalId: a.id, taskId: a.taskId, decision, ...(reason ? { reason } : {}) }] };
    }
    case 'refused': {
      const inFlight = state.deciding[event.approvalId];
      // Confirmed meanwhile (its patch came first): nothing to take back.
      if (!inFlight) return none;
      const { approval } = inFlight;
      return {
        state: {
          ...state,
          deciding: omit(state.deciding, approval.id),
          pending: { ...state.pending, [approval.id]: approval },
          refusals: { ...state.refusals, [approval.id]: event.reason },
        },
        asks: [],
      };
    }
  }
}

/**
 * The approvals as the host's whole state (`init`) has them: those still pending that a decision
 * made here is in flight for stay decided (the host has not answered it yet); a decision the
 * host no longer lists as pending was settled (its reply may never reach this page), so it goes.
 */
export function approvalsFromInit(state: ApprovalState, approvals: readonly ApprovalView[]): ApprovalState {
  const next: ApprovalState = { pending: {}, deciding: {}, refusals: {} };
  for (const a of approvals) {
    if (a.status !== 'pending') continue;
    const inFlight = state.deciding[a.id];
    if (inFlight) next.deciding[a.id] = { ...inFlight, approval: a };
    else next.pending[a.id] = a;
    const refusal = state.refusals[a.id];
    if (refusal !== undefined && !inFlight) next.refusals[a.id] = refusal;
  }
  return next;
}

/** The approvals that wait on `taskId`, oldest first (what its block offers to decide). */
export function pendingOf(state: ApprovalState, taskId: string): ApprovalView[] {
  return Object.values(state.pending)
    .filter((a) => a.taskId === taskId)
    .sort((a, b) => a.createdAt - b.createdAt);
}

/** The task an approval known here waits on (waiting or being decided). */
export function approvalTaskId(state: ApprovalState, id: string): string | undefined {
  return (state.pending[id] ?? state.deciding[id]?.approval)?.taskId;
}

/** What an approved request does next, in the person's words. */
function approvalWhat(approval: ApprovalView): string {
  return approval.command ? word('approvedRunning') : word('approvedApplying');
}

/** The line under what waits on `taskId`'s block while a decision made on it is in flight (undefined: none). */
export function decisionLine(state: ApprovalState, taskId: string): string | undefined {
  const inFlight = Object.values(state.deciding).find((d) => d.approval.taskId === taskId);
  if (!inFlight) return undefined;
  return inFlight.decision === 'approve' ? approvalWhat(inFlight.approval) : word('rejectedTold');
}

/**
 * Why the host refused the last decision on each of `pending` (by approval id): said on that
 * approval itself, so two that wait on one task each keep their own reason.
 */
export function refusalsOf(state: ApprovalState, pending: readonly ApprovalView[]): Record<string, string> {
  return Object.fromEntries(pending.flatMap((a) => (state.refusals[a.id] === undefined ? [] : [[a.id, word('notDone', state.refusals[a.id]!)]])));
}
