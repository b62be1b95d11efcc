/**
 * Consent for the chores a repository ships (issue #11): a chore is scheduled, watched or run
 * only once the person said yes to its current definition on this machine. A chore that came with
 * the workspace, or changed since it was enabled, waits for Enable; the yes is remembered per
 * workspace and per definition hash (core/consent), never in the repository, so a repository
 * cannot ship its own. New Chore consents at creation: the person wrote it here. ChoreHost asks
 * this at every load and hands the runner only the consented chores.
 */
import type { ConsentKind, ConsentStore } from '../../core/consent/consentStore';
import { choreDefinitionHash } from '../../core/consent/definitionHash';
import type { ChoreSkillBodies } from '../../core/consent/definitionHash';
import type { ChoreDefinition } from '../../core/chores/types';
import type { Logger } from '../../core/ports';

/** Chores are consented per workspace and per definition (see core/consent). */
const CHORE: ConsentKind = 'chore';

/** Why a fire of a chore that waits for Enable is not run (the runner records it as skipped, or stops the run). */
export const notEnabledReason = 'not enabled on this machine (its definition changed, or it came with the workspace): review it and Enable it';

/** Why Run now refuses a chore that waits for Enable. */
export function notEnabledForRunNow(choreId: string): string {
  return `The chore "${choreId}" is not enabled on this machine: review what it does and enable it (sidebar Enable, or "Tasklane: Enable Chore") first.`;
}

/** The Enable flow of chores, over the workspace's consent store. */
export class ChoreConsent {
  constructor(
    private readonly store: ConsentStore,
    private readonly logger: Logger,
    /** The bodies of the chore's skills as the agent would inject them (part of the hash). */
    private readonly skillBodies: (chore: ChoreDefinition) => ChoreSkillBodies = () => ({}),
    /** The consent hashes of the mcp.json servers the chore names (part of its hash). */
    private readonly mcpServers: (chore: ChoreDefinition) => Readonly<Record<string, string | null>> = () => ({}),
  ) {}

  /** The hash consent binds to: the definition, the bodies of the skills and the MCP servers it names. */
  hashOf(chore: ChoreDefinition): string {
    return choreDefinitionHash(chore, this.skillBodies(chore), this.mcpServers(chore));
  }

  /** Whether the person consented to this chore's current definition on this machine. */
  of(chore: ChoreDefinition): 'given' | 'needed' {
    return this.store.status(CHORE, chore.id, this.hashOf(chore));
  }

  /** The chores of `chores` that may run (consented); logs the ones that wait for Enable. */
  runnable(chores: readonly ChoreDefinition[]): ChoreDefinition[] {
    const runnable = chores.filter((c) => this.of(c) === 'given');
    const waiting = chores.filter((c) => !runnable.includes(c)).map((c) => c.id);
    if (waiting.length)
      this.logger.info('CHORE', `waiting for the user to enable: ${waiting.join(', ')} (shipped with the workspace or changed since enabled)`);
    return runnable;
  }

  /**
   * Records consent for the definition the person saw. `chore` is the loaded chore `choreId` names
   * (undefined when it is gone or invalid); `hash` is the `review.definitionHash` that was shown:
   * when the definition changed since, nothing is enabled.
   */
  async enable(chore: ChoreDefinition | undefined, choreId: string, hash: string): Promise<void> {
    if (!chore) throw new Error(`There is no valid chore "${choreId}" in .tasklane/chores.yaml; check its id and the problems shown on the file.`);
    if (this.hashOf(chore) !== hash) throw new Error(`The chore "${choreId}" changed since it was shown; review it again before enabling it.`);
    await this.store.give(CHORE, choreId, hash, 'enabled');
    this.logger.info('CHORE', `chore ${choreId} enabled by the user (definition ${hash.slice(0, 12)})`);
  }

  /** Withdraws consent; false when there was none. */
  async disable(choreId: string): Promise<boolean> {
    const revoked = await this.store.revoke(CHORE, choreId);
    if (revoked) this.logger.info('CHORE', `chore ${choreId} disabled by the user`);
    return revoked;
  }

  /** New Chore wrote this chore on this machine: the person's own, consented at creation. */
  async created(chore: ChoreDefinition): Promise<void> {
    await this.store.give(CHORE, chore.id, this.hashOf(chore), 'created');
  }
}
