import type { McpServerStatus } from '../../core/mcp/mcpServers';
import type { McpServerStateView, McpServerView } from '../../shared/mcpProtocol';

/** A server's status as the sidebar shows it (see McpServerStateView for what each state means). */
export function toMcpServerView(status: McpServerStatus & Pick<McpServerView, 'trustedFor'>): McpServerView {
  return {
    name: status.name,
    source: status.source,
    target: status.target,
    state: viewState(status),
    ...(status.lastError ? { lastError: status.lastError } : {}),
    ...(status.tools !== undefined ? { tools: status.tools } : {}),
    ...(status.trustedFor?.length ? { trustedFor: status.trustedFor } : {}),
  };
}

function viewState(status: McpServerStatus): McpServerStateView {
  switch (status.state) {
    case 'untrusted':
      return 'untrusted';
    case 'restricted':
      return 'restricted';
    case 'stopped':
      return 'idle';
    case 'starting':
      return 'starting';
    case 'ready':
      return 'running';
    case 'crashed':
      return status.failedAt === 'start' ? 'failed' : 'crashed';
  }
}
