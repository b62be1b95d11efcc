import type { McpSecretStore } from '../../src/core/mcp/mcpOAuth';

/** SecretStorage in memory, for MCP sign-ins outside VS Code (tests, the conformance client). */
export class MemorySecrets implements McpSecretStore {
  readonly values = new Map<string, string>();
  async get(key: string): Promise<string | undefined> {
    return this.values.get(key);
  }
  async store(key: string, value: string): Promise<void> {
    this.values.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.values.delete(key);
  }
}
