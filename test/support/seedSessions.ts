/**
 * A history of idle sessions written through the store's own APIs, for the tests and the UI tier
 * that need one (the extension must not be running on the store): each session has a question
 * and an answer, and `special` gives some their own question. Also the agent those tests open the
 * store with: real, but with no model, since nothing here runs a turn.
 */
import * as path from 'node:path';
import { createEngine } from '../../src/core/createEngine';
import type { Agent } from '../../src/core/engine/agent';
import { EngineState } from '../../src/core/engine/engineState';
import { AppendFile, EventStreams } from '../../src/core/engine/eventLog';
import type { Clock } from '../../src/core/ports';
import { silentLogger } from '../../src/core/ports';
import { Redactor } from '../../src/core/security/redact';
import type { OpenStore } from '../../src/core/store/openStore';
import { openStore } from '../../src/core/store/openStore';
import { MemoryWorkspace } from '../fakes/memoryWorkspace';

export interface SessionSeed {
  /** The database folder. */
  storeDir: string;
  /** The agent's folder (event streams, EVENT.md). The extension uses one folder for both. */
  storageDir: string;
  clock: Clock;
  count: number;
  /** Session i's id. */
  id: (i: number) => string;
  /** Moves the clock on before each session (sessions are written oldest first). */
  step: () => Promise<void> | void;
  /** Session i's question, where it is not `question <i>`. */
  special?: Record<number, string>;
}

/** Writes `count` sessions named `session <i>` (0 is the oldest) and closes the store. */
export async function writeSessions(seed: SessionSeed): Promise<void> {
  const { db, triggers } = await openStore({ dir: seed.storeDir, clock: seed.clock, triggers: { restartNoticeSession: false } });
  const streams = new EventStreams(path.join(seed.storageDir, 'events'));
  const state = new EngineState(db, streams, new AppendFile(path.join(seed.storageDir, 'EVENT.md')), seed.clock, silentLogger);
  await state.load();
  for (let i = 0; i < seed.count; i++) {
    await seed.step();
    const session = state.createSession({ id: seed.id(i), name: `session ${i}` });
    await state.appendMessage(session.id, 'user', seed.special?.[i] ?? `question ${i}`);
    await state.appendMessage(session.id, 'assistant', `answer ${i}`);
  }
  await state.commit();
  await streams.close();
  await triggers.close();
  await db.close();
}

/** A real agent on an open store, built as every host builds it, with no model: for what pages, searches and archives history. */
export async function agentWithoutModel(store: OpenStore, clock: Clock, storageDir: string): Promise<Agent> {
  const { agent } = await createEngine({
    db: store.db,
    triggers: store.triggers,
    model: async () => {
      throw new Error('no model here: nothing in this test runs a turn');
    },
    trusted: () => true,
    redactor: new Redactor(),
    workspace: new MemoryWorkspace({}),
    clock,
    logger: silentLogger,
    storageDir,
    skillDirs: [],
    settings: () => ({ maxActionsPerTask: 10, maxTokensPerTask: 1000 }),
  });
  return agent;
}
