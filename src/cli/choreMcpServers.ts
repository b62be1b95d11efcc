/**
 * The MCP servers of a chore run on the command line. Nothing is configured but what the chore
 * declares (`mcp:`): each server is the chore's own definition or the one of that name in the
 * folder's `.vscode/mcp.json`, started here with a scrubbed environment plus the secrets it names
 * (TASKLANE_SECRET_<NAME>, to that server only), given through the servers' `secretEnv` hook as in
 * VS Code (each value told to the run's redactor first), never written into a definition. A package npx would download must be pinned, and
 * a server that cannot start fails the run with its error before the model is called: the run
 * never goes on without a tool it was reviewed with. The engine builds the servers from this side
 * of them (`adapters`, core/engineMcp.ts), as it does VS Code's; calls go through its command
 * service (unattended gate: the declared tools or a refusal), like declared commands.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EngineMcp, McpAdapters } from '../core/engineMcp';
import { choreServerDefinition, choreServerSecretEnv, unpinnedPackage } from '../core/chores/choreMcp';
import { secretVariable } from '../core/chores/secretScope';
import type { ChoreDefinition } from '../core/chores/types';
import { MCP_FILE, parseMcpServers, parseJsonc, signsInWithoutPerson } from '../core/mcp/mcpConfig';
import { envInputs } from '../core/mcp/mcpInputs';
import type { McpServerDefinition } from '../core/mcp/mcpConfig';
import type { Logger } from '../core/ports';
import { scrubbedEnv } from './commandRunner';

export interface CliChoreMcpOptions {
  /** The folder the chore works on: its `.vscode/mcp.json` and the servers' working directory. */
  workspace: string;
  /**
   * What a server inherits, scrubbed to a few harmless variables (as for declared commands); also
   * where mcp.json's `${input:ID}` values are read (TASKLANE_MCP_INPUT_<ID>).
   */
  env: Readonly<Record<string, string | undefined>>;
  secrets: (name: string) => string | undefined;
  /** Told each secret value a server is given, before it starts (the run's redactor). */
  onSecret: (value: string) => void;
  logger: Logger;
}

/** The chore's servers: `adapters` for the engine, `attach` its servers, then, per run, `prepare`. */
export class CliChoreMcp {
  private mcp: EngineMcp | undefined;
  private chore: ChoreDefinition | undefined;
  private declared: McpServerDefinition[] = [];

  constructor(private readonly options: CliChoreMcpOptions) {}

  /** What createEngine builds the servers from: the run's chore's declared servers, nothing else. */
  adapters(): McpAdapters {
    return {
      definitions: () => this.declared,
      // The person ran this chore on their own folder: what it declares is what they chose to run.
      trusted: () => true,
      workspaceTrusted: () => true,
      cwd: this.options.workspace,
      baseEnv: () => scrubbedEnv(this.options.env) as Record<string, string>,
      // The one path for chore secrets, VS Code's too (host/mcp/mcpHost.ts): to the server naming each.
      secretEnv: (server) => choreServerSecretEnv(server, this.chore ? [this.chore] : [], this.options.secrets, (name) => `set ${secretVariable(name)}`),
      onSecret: this.options.onSecret,
      // `${input:ID}` from TASKLANE_MCP_INPUT_<ID> of the run's own environment (the one it was
      // given, as for commands and secrets), never from whatever process.env holds.
      inputs: envInputs((name) => this.options.env[name]),
    };
  }

  /** The engine's servers, built from `adapters()`. */
  attach(mcp: EngineMcp): void {
    this.mcp = mcp;
  }

  /**
   * Starts the servers `chore` declares and offers their tools; throws (the run fails with it) when
   * one is not defined, runs an unpinned package, lacks a secret or cannot start.
   */
  async prepare(chore: ChoreDefinition): Promise<void> {
    if (!chore.mcp || this.chore?.id === chore.id) return;
    if (!this.mcp) throw new Error('the MCP servers were started before the engine was built');
    const definitions = this.definitions(chore);
    this.chore = chore;
    this.declared = definitions;
    await this.mcp.servers.startAll();
    await this.mcp.offer();
    this.options.logger.info('CHORE', `chore ${chore.id}: MCP servers started: ${definitions.map((d) => d.name).join(', ')}`);
  }

  async stop(): Promise<void> {
    await this.mcp?.servers.stopAll();
  }

  /** Each declared server as it will run; its secrets are checked here and given at its start (`secretEnv`). */
  private definitions(chore: ChoreDefinition): McpServerDefinition[] {
    const known = workspaceMcpServers(this.options.workspace, this.options.logger);
    return Object.entries(chore.mcp ?? {}).map(([name, declared]) => {
      const definition = choreServerDefinition(name, declared, known);
      if (!definition) throw new Error(`the chore declares the MCP server ${name}, which neither its mcp: entry (command) nor ${MCP_FILE} defines`);
      if (definition.transport === 'stdio' && declared.command === undefined) {
        const unpinned = unpinnedPackage(definition.command, definition.args);
        if (unpinned) throw new Error(`${MCP_FILE} server ${name}: ${unpinned}`);
      }
      if (!declared.secrets?.length) return definition;
      if (definition.transport !== 'stdio' && !signsInWithoutPerson(definition))
        throw new Error(
          `the MCP server ${name} is reached over HTTP: secrets: is for a server the run starts, or one that signs in with no person (client_credentials or token_exchange)`,
        );
      // Said before any server starts, so the run fails on the first missing one with what to set.
      const missing = declared.secrets.find((secret) => !this.options.secrets(secret));
      if (missing !== undefined) throw new Error(`the MCP server ${name} needs the secret ${missing}: set ${secretVariable(missing)}`);
      return definition;
    });
  }
}

/**
 * The servers of `workspace`'s `.vscode/mcp.json` (none when there is no such file), read as
 * VS Code's McpHost reads it; problems of single entries are logged, invalid JSON throws.
 */
export function workspaceMcpServers(workspace: string, logger: Pick<Logger, 'warn'>): McpServerDefinition[] {
  const file = path.join(workspace, MCP_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  try {
    const parsed = parseMcpServers(parseJsonc(text), 'workspace');
    for (const problem of parsed.problems) logger.warn('CHORE', `${MCP_FILE} server ${problem.name}: ${problem.message}`);
    return parsed.servers;
  } catch (error) {
    throw new Error(`${MCP_FILE} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
