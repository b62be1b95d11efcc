/**
 * A chore's consent hash with the MCP servers it declares, computed the same way by every host
 * (issue 22): VS Code's Enable binds to it, and the CLI checks `--expect-hash` and writes the
 * workflow's hash with it, so a chore enabled in VS Code is the chore CI accepts. Each declared
 * server counts with its review hash (core/mcp/mcpReview.ts: command, arguments, working folder,
 * env, the program its PATH picks and the content of the workspace files it or a loader variable
 * names), whether the chore defines it or names one from `.vscode/mcp.json`, so a pull that
 * rewrites the script a server runs asks for Enable again.
 *
 * What only VS Code knows: the person's `tasklane.mcp.servers` setting, whose entry wins over an
 * mcp.json entry of the same name. The CLI has only mcp.json, so a chore naming a server defined
 * in the setting hashes differently there, as it should: the CLI could not start that server.
 */
import { choreServerDefinition } from '../chores/choreMcp';
import type { ChoreDefinition } from '../chores/types';
import type { McpServerDefinition } from '../mcp/mcpConfig';
import type { McpServerReview } from '../mcp/mcpReview';
import { choreDefinitionHash } from './definitionHash';
import type { ChoreSkillBodies } from './definitionHash';

/** Where a host finds the servers a chore names, and how it reviews a definition. */
export interface ChoreServerSources {
  /** Servers defined outside chores, first name wins: VS Code's setting then mcp.json; the CLI's mcp.json. */
  configured: readonly McpServerDefinition[];
  /** The Trust review of a definition (McpReviewer.review, over the workspace folder the server runs in). */
  review: (definition: McpServerDefinition) => Pick<McpServerReview, 'hash'>;
}

/** What a chore's declared servers are, for its review and its hash. */
export interface ChoreMcpFacts {
  /** The review hash of each declared server (`null`: nobody defines it). */
  hashes: Readonly<Record<string, string | null>>;
  /** What each defined server runs (its command line or URL), for the review. */
  targets: Readonly<Record<string, string>>;
}

/** The review hashes and command lines of the servers `chore` declares. */
export function choreMcpFacts(chore: Pick<ChoreDefinition, 'mcp'>, sources: ChoreServerSources): ChoreMcpFacts {
  const hashes: Record<string, string | null> = {};
  const targets: Record<string, string> = {};
  for (const [name, declared] of Object.entries(chore.mcp ?? {})) {
    const definition = choreServerDefinition(name, declared, sources.configured);
    hashes[name] = definition ? sources.review(definition).hash : null;
    if (definition) targets[name] = definition.transport === 'stdio' ? [definition.command, ...definition.args].join(' ') : definition.url;
  }
  return { hashes, targets };
}

/**
 * The hash consent binds to: the definition, its skills' bodies and the review of each server it
 * declares. VS Code computes the facts once for the Enable dialog and its hash (McpHost.facts is
 * `choreMcpFacts`), so it calls `choreDefinitionHash` with them; this is the same, in one call.
 */
export function choreConsentHash(chore: ChoreDefinition, skillBodies: ChoreSkillBodies, sources: ChoreServerSources): string {
  return choreDefinitionHash(chore, skillBodies, choreMcpFacts(chore, sources).hashes);
}
