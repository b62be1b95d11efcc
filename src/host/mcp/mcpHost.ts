/**
 * MCP servers in VS Code: definitions from the workspace's `.vscode/mcp.json` (VS Code's own
 * format) and from the user's `tasklane.mcp.servers` setting, consent for the ones a repository
 * ships, and their tools handed to the agent. A repository's server is code that runs on the
 * person's machine, so it starts only after `tasklane.trustMcpServer` for exactly that definition
 * (its hash: any change asks again); a user-settings server is trusted by its author; nothing
 * starts in Restricted Mode.
 */
import * as vscode from 'vscode';
import type { EngineMcp, McpAdapters } from '../../core/engineMcp';
import { MCP_FILE, parseMcpServers, parseJsonc, signsInWithoutPerson } from '../../core/mcp/mcpConfig';
import type { McpConfigProblem, McpServerDefinition } from '../../core/mcp/mcpConfig';
import { McpContext } from '../../core/mcp/mcpContext';
import { McpReviewer } from '../../core/mcp/mcpReview';
import { choreGrantsOf, choreServerDefinition, choreServerSecretEnv } from '../../core/chores/choreMcp';
import { choreMcpFacts } from '../../core/consent/choreConsentHash';
import type { ChoreMcpFacts } from '../../core/consent/choreConsentHash';
import type { ChoreDefinition } from '../../core/chores/types';
import type { McpServerReview } from '../../core/mcp/mcpReview';
import type { McpServers, McpServerStatus } from '../../core/mcp/mcpServers';
import type { Clock, Logger } from '../../core/ports';
import type { TasklaneSettings } from '../settings';
import { ElicitationForm } from './elicitationForm';
import { McpOAuth } from '../../core/mcp/mcpOAuth';
import type { McpSecretStore } from '../../core/mcp/mcpOAuth';
import { VsCodeSignIn } from './mcpSignIn';
import type { VsCodeMcpInputs } from './mcpInputsHost';

/** The consent the MCP host needs: the shape of the consent store (src/core/consent). */
export interface McpConsent {
  status(kind: 'mcpServer', id: string, hash: string): 'given' | 'needed';
  give(kind: 'mcpServer', id: string, hash: string, how: 'enabled' | 'created'): Promise<void>;
  revoke(kind: 'mcpServer', id: string): Promise<boolean>;
}

/** A server as getState and the MCP Servers view read it. */
export type McpHostStatus = McpServerStatus & {
  consent: 'given' | 'needed' | 'user' | 'chore';
  /** With `chore`: the enabled chores that declare the server and the tools each may call. */
  trustedFor?: Array<{ chore: string; tools: string[] }>;
};

export interface McpHostDeps {
  root: vscode.Uri | undefined;
  settings: Pick<TasklaneSettings, 'mcpServers' | 'mcpCallTimeoutMs'>;
  consent: McpConsent;
  trusted: () => boolean;
  clock: Clock;
  logger: Logger;
  /** Where a stdio server runs when its definition names no `cwd`. */
  cwd: string;
  /** Where remote servers' sign-ins are kept (VS Code's SecretStorage). */
  secrets: McpSecretStore;
  /** `publisher.name`: the authority of the sign-in redirect. */
  extensionId: string;
  /** Told each sign-in token and each chore secret a server is given, so none is written down anywhere. */
  onSecret: (value: string) => void;
  /** This workspace's chore secret of that name (SecretStorage), for the servers enabled chores give it to. */
  secret?: (name: string) => Promise<string | undefined>;
  /** The answers to mcp.json's `${input:ID}`, asked once and kept (mcpInputsHost.ts); absent: from the environment. */
  inputs?: VsCodeMcpInputs;
}

export class McpHost implements vscode.Disposable {
  /** The engine's servers (core/engineMcp.ts, built from `adapters()`) and, for the `@` picker, their resources and prompts. */
  private engineMcp: (EngineMcp & { context: McpContext }) | undefined;
  /** Sign-ins to remote servers; the URI handler hands it the browser's redirect (`handleRedirect`). */
  private readonly oauth: McpOAuth;
  private workspaceDefs: McpServerDefinition[] = [];
  private problems: McpConfigProblem[] = [];
  private readonly disposables: vscode.Disposable[] = [];
  private started = false;
  private readonly changeListeners = new Set<() => void>();

  /**
   * The servers the enabled chores declare, the ones they define themselves, and the review hash
   * each chore's consent covers for each server it names (`granted`).
   */
  private choreGrant: {
    names: Set<string>;
    defs: McpServerDefinition[];
    chores: readonly ChoreDefinition[];
    reviewed: Map<string, Set<string>>;
    key: string;
  } = {
    names: new Set(),
    defs: [],
    chores: [],
    reviewed: new Map(),
    key: '',
  };

  /** What the Trust dialog shows of each server, and the hash consent binds to (core/mcp/mcpReview.ts). */
  private readonly reviewer: McpReviewer;

  constructor(private readonly deps: McpHostDeps) {
    this.reviewer = new McpReviewer(deps.cwd);
    this.oauth = new McpOAuth({
      secrets: deps.secrets,
      signIn: new VsCodeSignIn(deps.extensionId),
      clock: deps.clock,
      logger: deps.logger,
      onSecret: deps.onSecret,
    });
  }

  /** What createEngine builds this window's servers from (core/engineMcp.ts): VS Code's side of them. */
  adapters(): McpAdapters {
    const deps = this.deps;
    return {
      definitions: () => this.definitions(),
      // Bound to what the dialog showed: the definition and the content of the workspace files it runs.
      // Or what a chore the person enabled covers (`choreTrusted`), so an edit of either asks again.
      trusted: (d) => d.source === 'user' || this.choreTrusted(d) || deps.consent.status('mcpServer', d.name, this.reviewer.review(d).hash) === 'given',
      workspaceTrusted: deps.trusted,
      cwd: deps.cwd,
      callTimeoutMs: () => deps.settings.mcpCallTimeoutMs(),
      onStateChange: () => this.changed(),
      // A server's request for input is shown to the person; the values go to that server only.
      elicit: new ElicitationForm(),
      oauth: this.oauth,
      // `secrets:` of the enabled chores, to the server that names each and no other (core/chores/choreMcp.ts).
      secretEnv: (server) => this.choreSecrets(server),
      onSecret: deps.onSecret,
      // The engine offers a server's changed tools (the same ones listed again add nothing); the view redraws.
      onToolsOffered: () => this.changed(),
      ...(deps.inputs ? { inputs: deps.inputs } : {}),
    };
  }

  /** The engine's servers, built from `adapters()`; before this the host has no servers to show or run. */
  attach(mcp: EngineMcp): void {
    this.engineMcp = { ...mcp, context: new McpContext(mcp.servers) };
  }
  get servers(): McpServers {
    return this.attached().servers;
  }
  get context(): McpContext {
    return this.attached().context;
  }
  private attached(): EngineMcp & { context: McpContext } {
    if (!this.engineMcp) throw new Error('the MCP servers are used before the engine was built');
    return this.engineMcp;
  }

  /** Told when a server's state, trust or definition may have changed (the sidebar re-reads `status()`). */
  onDidChange(listener: () => void): vscode.Disposable {
    this.changeListeners.add(listener);
    return new vscode.Disposable(() => this.changeListeners.delete(listener));
  }

  private changed(): void {
    for (const listener of this.changeListeners) {
      try {
        listener();
      } catch (error) {
        this.deps.logger.warn('HOST', `MCP status listener failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  /**
   * Every definition: the user's own first, then the workspace's (a workspace entry does not
   * replace a user one), then those enabled chores define themselves under a name still free.
   */
  definitions(): McpServerDefinition[] {
    const configured = this.configuredDefinitions();
    const names = new Set(configured.map((d) => d.name));
    return [...configured, ...this.choreGrant.defs.filter((d) => !names.has(d.name))];
  }

  private configuredDefinitions(): McpServerDefinition[] {
    const user = this.userDefinitions();
    const names = new Set(user.map((d) => d.name));
    return [...user, ...this.workspaceDefs.filter((d) => !names.has(d.name))];
  }

  /**
   * What the servers a chore declares run, for Enable, and their review hashes: part of the
   * chore's own hash, computed as the CLI does (core/consent/choreConsentHash.ts).
   */
  facts(chore: ChoreDefinition): ChoreMcpFacts {
    return choreMcpFacts(chore, { configured: this.configuredDefinitions(), review: (d) => this.reviewer.review(d) });
  }

  /**
   * The chores that may run now (consented, current): the servers they declare may start, and
   * their declared tools run for their tasks without a card (CommandService asks the runner).
   */
  granted(chores: readonly ChoreDefinition[]): void {
    const names = new Set<string>();
    const defs: McpServerDefinition[] = [];
    const reviewed = new Map<string, Set<string>>();
    for (const chore of chores) {
      for (const [name, hash] of Object.entries(this.facts(chore).hashes)) if (hash) reviewed.set(name, (reviewed.get(name) ?? new Set()).add(hash));
      for (const [name, declared] of Object.entries(chore.mcp ?? {})) {
        names.add(name);
        const own = declared.command !== undefined ? choreServerDefinition(name, declared, []) : undefined;
        if (!own) continue;
        if (defs.some((d) => d.name === name) || this.configuredDefinitions().some((d) => d.name === name))
          this.deps.logger.warn('HOST', `chore ${chore.id} defines the MCP server ${name}, a name already defined; the first definition is used`);
        else defs.push(own);
      }
    }
    const secrets = new Map([...names].map((name) => [name, secretNames(chores, name)]));
    const hashes = [...reviewed].map(([name, set]) => [name, [...set].sort()]).sort();
    const key = JSON.stringify([[...names].sort(), defs.map((d) => d.hash), [...secrets].sort(), hashes]);
    if (key === this.choreGrant.key) return;
    // A running server whose chores now give it other secrets starts again with them.
    const restart = [...new Set([...this.choreGrant.names, ...names])].filter(
      (name) => secretNames(this.choreGrant.chores, name) !== (secrets.get(name) ?? ''),
    );
    this.choreGrant = { names, defs, chores, reviewed, key };
    void Promise.all(restart.map((name) => this.servers.stop(name)))
      .then(() => this.refresh())
      .catch((error) => this.deps.logger.error('HOST', 'could not start the MCP servers of the enabled chores', error));
  }

  /**
   * Whether an enabled chore's consent covers `definition`: the chore names the server, and what
   * the person saw at Enable (the review hash in the chore's hash) is what would run. A name is not
   * enough: a chore that defines `kit` itself, next to a `.vscode/mcp.json` that defines another
   * `kit`, was enabled for its own command line, not for the one mcp.json's entry (which wins the
   * name) would start.
   */
  private choreTrusted(definition: McpServerDefinition): boolean {
    return this.choreGrant.reviewed.get(definition.name)?.has(this.reviewer.review(definition).hash) ?? false;
  }

  /** What `server` gets at its start for the secrets the enabled chores name for it; throws naming a missing one. */
  private async choreSecrets(server: string): Promise<Record<string, string>> {
    const read = this.deps.secret ?? (() => Promise.resolve(undefined));
    const env = await choreServerSecretEnv(server, this.choreGrant.chores, read, (name) => `set it with "Tasklane: Set Secret" (name ${name})`);
    const def = this.definitions().find((d) => d.name === server);
    // Over HTTP, a secret only signs in with no person (core/mcp/mcpMachineAuth.ts); nothing else reads it.
    if (Object.keys(env).length && def?.transport === 'http' && !signsInWithoutPerson(def))
      throw new Error(
        `the MCP server ${server} is reached over HTTP: secrets: is for a server Tasklane starts, or one that signs in with no person (client_credentials or token_exchange)`,
      );
    return env;
  }

  /** Reads mcp.json now and whenever it changes; new tools reach the agent through the engine's `offer`. */
  async start(): Promise<void> {
    this.started = true;
    await this.reload();
    if (this.deps.root) {
      // A glob, as for chores.yaml (chores/choreWatchers.ts): a plain relative path is watched on its
      // own and that watch misses the file when its folder (`.vscode/`) is created or removed after
      // the start; a glob rides the workspace's recursive watcher. Any match re-reads the one file.
      const [folder, file] = MCP_FILE.split('/') as [string, string];
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(this.deps.root, `**/${folder}{,/${file}}`));
      const reload = () => void this.reload().catch((e) => this.deps.logger.error('HOST', `could not reload ${MCP_FILE}`, e));
      this.disposables.push(watcher, watcher.onDidChange(reload), watcher.onDidCreate(reload), watcher.onDidDelete(reload));
    }
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('tasklane.mcp') && void this.refresh()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.refresh()),
    );
  }

  /**
   * For getState and the sidebar: every server with its state, what it would run, and whether it
   * is trusted: by the person (`given`, `user`), only through enabled chores (`chore`, with which
   * chores and tools in `trustedFor`), or not (`needed`).
   */
  status(): McpHostStatus[] {
    return this.servers.status().map((s) => {
      const def = this.definitions().find((d) => d.name === s.name);
      const hash = def ? this.reviewer.review(def).hash : s.hash;
      // `hash` is the consent hash: what `tasklane.trustMcpServer <name> <hash>` pins.
      const consent = def?.source === 'user' ? 'user' : def ? this.deps.consent.status('mcpServer', def.name, hash) : 'needed';
      const trustedFor = consent === 'needed' && def && this.choreTrusted(def) ? choreGrantsOf(s.name, this.choreGrant.chores) : [];
      return { ...s, hash, ...(trustedFor.length ? { consent: 'chore' as const, trustedFor } : { consent }) };
    });
  }

  /** What the Trust dialog shows for `name`, with the hash a Trust on it binds to. */
  review(name: string): (McpServerReview & { definition: McpServerDefinition }) | undefined {
    const def = this.definitions().find((d) => d.name === name);
    return def ? { ...this.reviewer.review(def), definition: def } : undefined;
  }

  /** Problems in mcp.json or the setting (shown in the log and getState). */
  configProblems(): McpConfigProblem[] {
    return this.problems;
  }

  /**
   * The person's yes for exactly what they were shown: `shownHash` is the review's hash on screen.
   * When the definition or a file it runs changed since (a pull while the dialog was open),
   * nothing is trusted.
   */
  async trust(name: string, shownHash: string): Promise<McpServerDefinition> {
    const review = this.review(name);
    if (!review) throw new Error(`There is no MCP server "${name}" in ${MCP_FILE} or tasklane.mcp.servers.`);
    if (review.hash !== shownHash) throw new Error(`The MCP server "${name}" changed since it was shown; review it again before trusting it.`);
    if (review.definition.source === 'workspace') await this.deps.consent.give('mcpServer', name, review.hash, 'enabled');
    await this.refresh();
    return review.definition;
  }

  /** Withdraws consent; the server is stopped and its tools are no longer offered. */
  async distrust(name: string): Promise<void> {
    await this.deps.consent.revoke('mcpServer', name);
    await this.refresh();
  }

  /** The browser came back from a sign-in (the extension's URI handler): true when a sign-in was waiting for it. */
  handleRedirect(uri: string): boolean {
    return this.oauth.deliver(uri);
  }

  /** Signs in to a remote server now (asking even if the person said no before), then offers its tools. */
  async signIn(name: string): Promise<void> {
    await this.servers.signIn(name);
    await this.refresh();
  }

  /** Deletes a remote server's sign-in; false when there was none. */
  async signOut(name: string): Promise<boolean> {
    const had = await this.servers.signOut(name);
    this.changed();
    return had;
  }

  /**
   * Deletes every kept answer to an `${input:ID}` and stops the servers that name one, so each
   * asks again when it next starts (at once, for the servers whose tools are offered). The IDs forgotten.
   */
  async forgetInputs(): Promise<string[]> {
    const forgotten = (await this.deps.inputs?.forget()) ?? [];
    await Promise.all(
      this.definitions()
        .filter((d) => d.inputs?.length)
        .map((d) => this.servers.stop(d.name)),
    );
    // Not awaited: the command ends now, while the input boxes wait for the person.
    void this.refresh().catch((e) => this.deps.logger.error('HOST', 'could not start the MCP servers again', e));
    return forgotten;
  }

  /** Lists the tools of every runnable server and hands the new ones to the agent. Never throws. */
  async refresh(): Promise<void> {
    await this.servers.prune();
    // Trust given or withdrawn, or a definition edited: the sidebar shows it before any server starts.
    this.changed();
    if (!this.started || !this.engineMcp) return;
    await this.engineMcp.offer();
    // The tool counts are known now (a server turned running before its tools were listed).
    this.changed();
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    void this.engineMcp?.servers.stopAll();
  }

  private async reload(): Promise<void> {
    // Read into locals and swap at the end: a reload (the watcher fires on every save) must never
    // leave a moment where the servers look gone to a concurrent trust or status call.
    const problems: McpConfigProblem[] = [];
    let defs: McpServerDefinition[] = [];
    if (this.deps.root) {
      const uri = vscode.Uri.joinPath(this.deps.root, MCP_FILE);
      let text: string | undefined;
      try {
        text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      } catch {
        text = undefined; // no mcp.json: no workspace servers
      }
      if (text !== undefined) {
        try {
          const parsed = parseMcpServers(parseJsonc(text), 'workspace');
          defs = parsed.servers;
          problems.push(...parsed.problems);
        } catch (error) {
          problems.push({ name: MCP_FILE, source: 'workspace', message: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` });
        }
      }
    }
    this.workspaceDefs = defs;
    this.problems = problems;
    for (const problem of problems) this.deps.logger.warn('HOST', `MCP ${problem.source} server ${problem.name}: ${problem.message}`);
    await this.refresh();
  }

  private userDefinitions(): McpServerDefinition[] {
    // The user's own value only (a user-only setting): a workspace cannot add "trusted" servers.
    const value = this.deps.settings.mcpServers();
    if (value === undefined) return [];
    const parsed = parseMcpServers(value, 'user');
    return parsed.servers;
  }
}

/** The secret names `chores` give the server `server`, as one comparable string. */
function secretNames(chores: readonly ChoreDefinition[], server: string): string {
  return [...new Set(chores.flatMap((c) => c.mcp?.[server]?.secrets ?? []))].sort().join(',');
}
