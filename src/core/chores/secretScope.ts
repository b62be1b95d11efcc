/**
 * Chore secrets are per workspace (issue #11). VS Code's SecretStorage is shared by every window
 * of the extension, so a secret stored under its bare name (`ops-smtp`) could be used by any
 * repository's chores.yaml that names it. The key therefore carries a workspace id: a secret set
 * in one workspace is invisible to every other, whatever name their YAML writes.
 */
import { createHash } from 'node:crypto';

/**
 * A stable id for a workspace: a hash of the `.code-workspace` file URI for a multi-root
 * workspace, else of the first folder's URI (so two clones of one repo do not share secrets).
 */
export function workspaceSecretScope(workspaceUri: string): string {
  return createHash('sha256').update(workspaceUri).digest('hex').slice(0, 16);
}

/** The SecretStorage key of chore secret `name` in the workspace with id `scope`. */
export function choreSecretKey(scope: string, name: string): string {
  return `tasklane.secret.${scope}.${name}`;
}

/**
 * The environment variable a chore secret lives in headless, and the one a declared MCP server gets
 * it in: `team-slack` → TASKLANE_SECRET_TEAM_SLACK.
 */
export function secretVariable(name: string): string {
  return `TASKLANE_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}
