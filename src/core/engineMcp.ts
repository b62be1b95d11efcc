/**
 * MCP in the engine's graph: the one place `McpServers` is built, for VS Code (McpHost) and the
 * command line (CliChoreMcp) alike. A host gives what only it knows (which definitions exist and
 * which it trusts, the sign-in, the form, the secrets, where `${input:…}` values come from) as
 * `McpAdapters`; the engine owns the servers, makes them the command service's call port and the
 * source of the grantable `mcp:<server>` sets, and offers their tools to the agent (`offer`), at
 * the host's word and on every `notifications/tools/list_changed`, so the two hosts cannot wire
 * the calls, the sets or the offering differently.
 */
import type { ActionDef } from './actions/types';
import { guardRestricted } from './approval/commands/commandActions';
import type { CommandService } from './approval/commands/commandService';
import { McpServers } from './mcp/mcpServers';
import type { McpServersDeps } from './mcp/mcpServers';
import type { Clock, Logger } from './ports';

/** The host's side of its MCP servers: everything `McpServers` needs but the clock and the logger. */
export type McpAdapters = Omit<McpServersDeps, 'clock' | 'logger' | 'onToolsChanged'> & {
  /** Told after a server's changed tools were offered again (the host redraws its view). */
  onToolsOffered?: () => void;
};

export interface EngineMcp {
  servers: McpServers;
  /**
   * Lists the tools of every runnable server and offers the agent those not offered before (the
   * same tools listed again add nothing, so the prompt's stable prefix stays). Never throws for a
   * broken server: it is left out (`McpServers.actions`). Returns what was new.
   */
  offer(): Promise<ActionDef[]>;
}

/** Builds the servers now; `offer` works once `attach` has given the command service and the agent. */
export function buildMcp(
  adapters: McpAdapters,
  deps: { clock: Clock; logger: Logger; trusted: () => boolean },
): EngineMcp & { attach(service: Pick<CommandService, 'request'>, addActions: (actions: ActionDef[]) => void): void } {
  const { onToolsOffered, ...serverAdapters } = adapters;
  let target: { service: Pick<CommandService, 'request'>; addActions: (actions: ActionDef[]) => void } | undefined;
  const offered = new Set<string>();
  const offer = async (): Promise<ActionDef[]> => {
    if (!target) throw new Error('the MCP tools were offered before the engine was built');
    const fresh = (await servers.actions(target.service)).filter((a) => !offered.has(a.name));
    for (const action of fresh) offered.add(action.name);
    if (fresh.length) {
      // Restricted Mode withdraws them like every other tool that needs approval.
      target.addActions(guardRestricted(fresh, deps.trusted));
      deps.logger.info('HOST', `MCP tools offered: ${fresh.map((a) => a.name).join(', ')}`);
    }
    return fresh;
  };
  const servers: McpServers = new McpServers({
    ...serverAdapters,
    clock: deps.clock,
    logger: deps.logger,
    // A server's new tools reach the agent mid-task.
    onToolsChanged: () =>
      void offer()
        .then(() => onToolsOffered?.())
        .catch((e) => deps.logger.error('HOST', 'could not list the MCP tools again', e)),
  });
  return {
    servers,
    offer,
    attach(service, addActions) {
      target = { service, addActions };
    },
  };
}
