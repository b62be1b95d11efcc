/**
 * One running turn of a session, as the person sees and stops it: its id, its stop signal and
 * its stream. `runLiveTurn` brackets a conversation or task turn with `turn` changes (running,
 * then not) so the sidebar shows Stop exactly while a turn runs.
 */
import { newId } from './engineState';
import type { EngineEnv, LiveTurn } from './engineEnv';
import { TurnStream } from './streaming';

export type { LiveTurn };

export async function runLiveTurn<T>(env: EngineEnv, sessionId: string, run: (turn: LiveTurn) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const id = newId('turn-', env.clock.now());
  const stream = new TurnStream((delta) => env.state.publish({ type: 'stream', sessionId, turnId: id, delta }), { redact: env.redact });
  let stopped = false;
  const turn: LiveTurn = {
    id,
    signal: AbortSignal.any([env.signal, controller.signal]),
    stream,
    get stopped() {
      return stopped;
    },
    stop() {
      stopped = true;
      controller.abort();
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
