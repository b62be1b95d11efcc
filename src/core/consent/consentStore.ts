/**
 * Consent for automation the person did not write on this machine (issue #11): chores a
 * repository ships today, MCP servers it ships later. A consent names WHAT it is for (`kind` +
 * `id`) and WHICH definition the person saw (`hash`, see definitionHash.ts): any change to the
 * definition makes the consent stale, so the thing is disabled again until they look at it anew.
 *
 * Consent is machine- and workspace-local state (the host backs it with `workspaceState`), never a
 * file in the repository: a repository cannot ship its own yes.
 */

/** What kind of shipped automation a consent is for. New kinds (e.g. `mcpServer`) just add a name. */
export type ConsentKind = 'chore' | 'mcpServer' | 'checks';

/** Where one item stands: `given` only when the stored consent is for exactly this definition. */
export type ConsentStatus = 'given' | 'needed';

/** One stored consent. */
export interface ConsentRecord {
  kind: ConsentKind;
  id: string;
  /** The definition hash the person consented to. */
  hash: string;
  /** When (ms since epoch). */
  givenAt: number;
  /** How: `created` (made with Tasklane on this machine, e.g. New Chore) or `enabled` (the person pressed Enable). */
  how: 'created' | 'enabled';
}

/**
 * Key-value persistence, shaped like VS Code's `Memento` (workspaceState) so the host can pass it
 * straight in; tests pass a Map-backed fake.
 */
export interface ConsentBackend {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

const storageKey = 'tasklane.consent.v1';

type Stored = Record<string, ConsentRecord>;

const keyOf = (kind: ConsentKind, id: string): string => `${kind}:${id}`;

/**
 * The consent store. All reads are synchronous (the backend caches), writes are awaited so a
 * consent survives a reload the moment `give` resolves.
 */
export class ConsentStore {
  private readonly listeners = new Set<(kind: ConsentKind, id: string) => void>();

  constructor(
    private readonly backend: ConsentBackend,
    private readonly now: () => number = Date.now,
  ) {}

  /** `given` when a consent for `kind`/`id` exists AND was given for this very `hash`. */
  status(kind: ConsentKind, id: string, hash: string): ConsentStatus {
    return this.record(kind, id)?.hash === hash ? 'given' : 'needed';
  }

  /** The stored consent (possibly for an older definition), if any. */
  record(kind: ConsentKind, id: string): ConsentRecord | undefined {
    return this.all()[keyOf(kind, id)];
  }

  /** Records the person's yes for this exact definition (replacing a consent for an older one). */
  async give(kind: ConsentKind, id: string, hash: string, how: ConsentRecord['how']): Promise<void> {
    const all = { ...this.all(), [keyOf(kind, id)]: { kind, id, hash, givenAt: this.now(), how } };
    await this.backend.update(storageKey, all);
    this.changed(kind, id);
  }

  /** Withdraws consent (Disable): the item is disabled until it is enabled again. */
  async revoke(kind: ConsentKind, id: string): Promise<boolean> {
    const all = { ...this.all() };
    if (!all[keyOf(kind, id)]) return false;
    delete all[keyOf(kind, id)];
    await this.backend.update(storageKey, all);
    this.changed(kind, id);
    return true;
  }

  /** Told after every give or revoke. */
  onDidChange(listener: (kind: ConsentKind, id: string) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private all(): Stored {
    const stored = this.backend.get<Stored>(storageKey);
    return stored && typeof stored === 'object' ? stored : {};
  }

  private changed(kind: ConsentKind, id: string): void {
    for (const listener of this.listeners) listener(kind, id);
  }
}

/** A Map-backed backend (tests, headless runs). */
export function memoryConsentBackend(): ConsentBackend {
  const map = new Map<string, unknown>();
  return {
    get: <T>(key: string) => map.get(key) as T | undefined,
    update: (key, value) => {
      map.set(key, structuredClone(value));
      return Promise.resolve();
    },
  };
}
