import * as path from 'node:path';
import type { McpServerDefinition } from '../../src/core/mcp/mcpConfig';
import { McpServers } from '../../src/core/mcp/mcpServers';
import type { McpServersDeps } from '../../src/core/mcp/mcpServers';
import { systemClock } from '../../src/core/ports';
import { MemoryLogger } from '../fakes/memoryLogger';

/** The repository's root: the working folder of the servers tests start. */
export const repoRoot = path.resolve(__dirname, '../..');

/** Servers for `defs`, each trusted, in a trusted workspace, on the real clock; `extra` adds or overrides deps. */
export function trustedServers(defs: readonly McpServerDefinition[], extra: Partial<McpServersDeps> = {}): McpServers {
  return new McpServers({
    definitions: () => defs,
    trusted: () => true,
    workspaceTrusted: () => true,
    cwd: repoRoot,
    clock: systemClock,
    logger: new MemoryLogger(),
    ...extra,
  });
}
