/**
 * One running turn of a session, as the person sees and stops it: its id, its stop signal (the
 * turn registry's, see stopping.ts) and its stream. `runLiveTurn` brackets a conversation or
 * task turn with `turn` changes (running, then not) so the sidebar shows Stop exactly while a
 * turn runs.
 */
import { newId } from './engineState';
import type { EngineEnv, LiveTurn } from './engineEnv';
import type { RunningTurn } from './stopping';
import { TurnStream } from './streaming';

export type { LiveTurn };

export async function runLiveTurn<T>(env: EngineEnv, sessionId: string, running: RunningTurn, run: (turn: LiveTurn) => Promise<T>): Promise<T> {
  const id = newId('turn-', env.clock.now());
  const stream = new TurnStream((delta) => env.state.publish({ type: 'stream', sessionId, turnId: id, delta }), { redact: env.redact });
  // The registry's turn already has the one signal Stop, Cancel and the agent's shutdown abort
  // (one listener on the shutdown signal): the live turn shares it rather than joining a second
  // controller to it with AbortSignal.any on every turn.
  const turn: LiveTurn = {
    id,
    signal: running.signal,
    stream,
    get stopped() {
      return running.stopped;
    },
    stop() {
      running.abort();
    },
  };
  env.liveTurns.set(sessionId, turn);
  env.state.publish({ type: 'turn', sessionId, turnId: id, running: true });
  try {
    return await run(turn);
  } finally {
    stream.close();
    if (env.liveTurns.get(sessionId) === turn) env.liveTurns.delete(sessionId);
    env.state.publish({ type: 'turn', sessionId, turnId: id, running: false });
  }
}

/**
 * Commits what a stopped turn had shown: the partial reply as an assistant line marked stopped,
 * or a plain notice when nothing had been said yet. Never an error line, never a retry.
 */
export async function commitStopped(env: EngineEnv, sessionId: string, turn: LiveTurn): Promise<void> {
  const text = turn.stream.visibleText().trim();
  if (text) await env.state.appendMessage(sessionId, 'assistant', text, { stopped: true });
  else await env.state.appendMessage(sessionId, 'event', 'Stopped before the model said anything.');
  env.logger.info('CHAT', `${sessionId}: turn ${turn.id} stopped by the user (${text.length} characters kept)`);
}
