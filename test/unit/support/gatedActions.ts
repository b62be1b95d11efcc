/**
 * The real approval-gated actions (edits over a temp folder, commands over a recording requester)
 * for engine-level tests of what a task may do. Nothing here is applied or run: a test checks
 * whether a proposal or a command request was made at all.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ActionDef } from '../../../src/core/actions/types';
import { ChangeSetDecider } from '../../../src/core/approval/changes/changeSetDecider';
import { commandActions } from '../../../src/core/approval/commands/commandActions';
import { createEditActions } from '../../../src/core/approval/changes/editActions';
import { nodeFs } from '../../../src/core/approval/paths/nodeFs';
import { silentLogger } from '../../../src/core/ports';
import type { Clock } from '../../../src/core/ports';
import { InMemoryChangeSetStore } from '../../../src/core/approval/changes/changeSetStore';
import { DiskReader } from '../../../src/core/approval/paths/fsWorkspace';

export interface GatedActions {
  actions: ActionDef[];
  /** Change sets proposed so far. */
  store: InMemoryChangeSetStore;
  /** Commands the actions asked to run (none runs: each stays pending). */
  commandRequests: string[];
  root: string;
  dispose(): void;
}

export function gatedActions(clock: Clock): GatedActions {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-gated-')));
  fs.writeFileSync(path.join(root, 'README.md'), '# Demo\n');
  const files = new DiskReader(root, nodeFs);
  const store = new InMemoryChangeSetStore();
  const decider = new ChangeSetDecider({
    store,
    files,
    applier: { apply: async () => assert('nothing is approved in these tests') },
    ledger: { intent: async () => 'l-1', outcome: async () => undefined },
    durable: () => true,
    triggers: { emit: async () => ({}) as never },
    logger: silentLogger,
  });
  const commandRequests: string[] = [];
  let pending = 0;
  const edits = createEditActions({ root, fs: nodeFs, files, store, decider, clock, policy: () => ({ autoApproveEdits: false }), taskChore: () => undefined });
  const commands = commandActions({
    request: async (spec) => {
      commandRequests.push(spec.command);
      return {
        pending: {
          id: `c-${++pending}`,
          kind: spec.kind,
          command: spec.command,
          taskId: spec.taskId,
          sessionId: spec.sessionId,
          reason: 'not allowlisted',
          status: 'pending',
          createdAt: clock.now(),
        } as never,
      };
    },
  });
  return { actions: [...edits, ...commands], store, commandRequests, root, dispose: () => fs.rmSync(root, { recursive: true, force: true }) };
}

function assert(message: string): never {
  throw new Error(message);
}

/** The tool names a scripted-model request offered (either wire format). */
export function offeredTools(body: unknown): string[] {
  const tools = (body as { tools?: Array<{ name?: string; function?: { name: string } }> }).tools ?? [];
  return tools.map((t) => t.function?.name ?? t.name ?? '').sort();
}
