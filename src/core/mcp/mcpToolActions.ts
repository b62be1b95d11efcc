/**
 * The action an MCP tool becomes: `mcp_<server>_<tool>` in the set `mcp:<server>`, a bounded
 * description, the input schema as the server sent it (the zod form of it only validates), and a
 * run that goes through the command approval flow, its progress notes to the step row and the
 * turn's Stop/Cancel to the call.
 */
import * as z from 'zod/v4';
import { defineAction } from '../actions/types';
import type { ActionDef } from '../actions/types';
import type { CommandService } from '../approval/commands/commandService';
import { describeResult } from '../approval/commands/commandService';
import type { McpTool } from './mcpLists';

/** Longest tool description offered to the model; longer ones are cut (the stable prefix stays small). */
export const MAX_TOOL_DESCRIPTION = 300;
/** Providers accept tool names of at most 64 characters. */
const MAX_ACTION_NAME = 64;

/** The action set a server's tools are in; tasks and chores name it like any other set. */
export function mcpActionSet(server: string): string {
  return `mcp:${server}`;
}

/** `mcp_<server>_<tool>` in snake_case, within the providers' 64 characters. */
export function mcpActionName(server: string, tool: string): string {
  const snake = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '');
  return `mcp_${snake(server)}_${snake(tool)}`.slice(0, MAX_ACTION_NAME).replace(/_+$/, '');
}

export function toolAction(server: string, tool: McpTool, service: Pick<CommandService, 'request'>, available: () => boolean): ActionDef {
  const hints = [tool.annotations.readOnlyHint ? 'read-only' : undefined, tool.annotations.destructiveHint ? 'destructive' : undefined].filter(
    (h): h is string => Boolean(h),
  );
  const described = tool.description.replace(/\s+/g, ' ').trim();
  const description = `[MCP server ${server}] ${described.length > MAX_TOOL_DESCRIPTION ? `${described.slice(0, MAX_TOOL_DESCRIPTION - 1)}…` : described || tool.name} Each call needs the user's approval unless allowlisted.`;
  return defineAction({
    name: mcpActionName(server, tool.name),
    description,
    input: inputSchema(tool.inputSchema),
    // Offered as the server sent it (bounded: mcpLimits.ts); the zod form only validates.
    inputJsonSchema: tool.inputSchema,
    actionSets: [mcpActionSet(server)],
    parallelizable: false,
    // The ledger entry is written by the command service around the real call, as for commands.
    irreversible: false,
    approval: 'policy',
    available,
    async run(input, ctx) {
      if (!available())
        throw new Error(
          `The MCP server ${server} is not trusted in this workspace (or the workspace is in Restricted Mode); its tools cannot run. Tell the user.`,
        );
      if (!ctx.taskId) throw new Error('MCP tools work inside a task only: start a task first.');
      const command = `${server}/${tool.name}`;
      const progress = ctx.progress ? { onProgress: ctx.progress } : {};
      // Stop or Cancel of the turn aborts a call that runs at once (the SDK then tells the server
      // notifications/cancelled); an approved call later is stopped by its card or stopTask.
      const signal = ctx.signal ? { signal: ctx.signal } : {};
      const answer = await service.request({
        kind: 'mcp',
        command,
        input: JSON.stringify(input ?? {}),
        hints,
        taskId: ctx.taskId,
        sessionId: ctx.sessionId,
        ...progress,
        ...signal,
      });
      if ('ran' in answer) return describeResult('mcp', command, answer.ran);
      ctx.turn.needsApproval(answer.pending.id, `call the MCP tool ${command}`);
      return `Asked the user to approve the MCP tool ${command} (${answer.pending.reason}). Nothing has run yet; you will get the result, or the reason for a rejection, in the next turn.`;
    },
  });
}

/** The tool's JSON Schema as a validator; one that zod cannot read still accepts an object (the server validates too). */
function inputSchema(schema: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return z.record(z.string(), z.unknown());
  }
}
