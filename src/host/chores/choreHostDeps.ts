import type * as vscode from 'vscode';
import type { ModelCostContext } from '../../core/chores/chorePreview';
import type { ChoreDefinition } from '../../core/chores/types';
import type { ConsentStore } from '../../core/consent/consentStore';
import type { EngineChores } from '../../core/createEngine';
import type { Clock, Logger } from '../../core/ports';
import type { ChoreSettings } from '../settings';
import type { ChoreMcpFacts } from './choreViews';

/** What the chore host is built from, once the engine exists (src/host/storeServices.ts). */
export interface ChoreHostDeps {
  /** The engine's chore runner, run log, spend ledger and scheduler. */
  engine: EngineChores;
  clock: Clock;
  logger: Logger;
  /** Workspace Trust, read at each use: chores never run in an untrusted workspace. */
  trusted: () => boolean;
  /** The window's one consent store (over workspaceState, never the repository), shared with MCP Trust and the checks. */
  consent: ConsentStore;
  /** The first workspace folder (where `.tasklane/chores.yaml` lives); undefined when none is open. */
  root: vscode.Uri | undefined;
  /** The master switch and the caps across chores (src/host/settings.ts), read at each use. */
  choreSettings?: () => ChoreSettings;
  /** The model chores run on and the person's prices: an unpriced model's cost note on chores.yaml and the cards. */
  modelCost?: () => ModelCostContext | undefined;
  /** The MCP servers chores name (src/host/mcp/mcpHost.ts): their facts for the review and hash, and which chores may use them. */
  mcp?: ChoreMcpPort;
}

/** What chores need of the window's MCP servers. */
export interface ChoreMcpPort {
  /** What the servers `chore` declares run, and their review hashes (part of its consent hash). */
  facts(chore: ChoreDefinition): ChoreMcpFacts;
  /** The chores that may run now: the servers they declare may start for their runs. */
  granted(chores: readonly ChoreDefinition[]): void;
}
