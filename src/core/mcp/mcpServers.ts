/**
 * The MCP servers of a window, as tools of the agent. A server runs only when it may: never in
 * Restricted Mode, a repository's only after the person trusted that exact definition (its hash),
 * the person's own (user settings) always. Each server's tools become actions in an action set of
 * its own (`mcp:<server>`), named `mcp_<server>_<tool>`, with bounded descriptions so the prompt
 * stays small. Every call goes through the command approval flow (a card, `tasklane.approve`, the
 * ledger) unless `mcp:<server>/<tool>` is allowlisted; the server's own hints are shown on the
 * card but never skip the ask.
 */
import { boundedAbout } from '../actions/actionSets';
import type { GrantableSet } from '../actions/actionSets';
import type { ActionDef } from '../actions/types';
import type { CommandResult } from '../approval/commands/commandApproval';
import type { CommandService, McpCallPort } from '../approval/commands/commandService';
import type { Clock, Logger } from '../ports';
import type { McpServerDefinition } from './mcpConfig';
import { McpConnection } from './mcpConnection';
import { boundedTools } from './mcpLimits';
import type { McpConnectionState, McpPromptInfo, McpResourceInfo, McpTool } from './mcpConnection';
import type { ElicitationPort } from './mcpElicitation';
import type { McpInputPort } from './mcpInputs';
import type { McpOAuth } from './mcpOAuth';
import { mcpActionName, mcpActionSet, toolAction } from './mcpToolActions';

export { MAX_TOOL_DESCRIPTION, mcpActionName, mcpActionSet } from './mcpToolActions';

export interface McpServersDeps {
  definitions: () => readonly McpServerDefinition[];
  /** Whether the person trusts this exact definition (user-settings servers: always). */
  trusted: (definition: McpServerDefinition) => boolean;
  /** False in Restricted Mode: no server starts, no MCP tool is offered. */
  workspaceTrusted: () => boolean;
  cwd: string;
  clock: Clock;
  logger: Logger;
  callTimeoutMs?: number | (() => number);
  idleStopMs?: number;
  baseEnv?: () => Record<string, string>;
  onStateChange?: (server: string, state: McpConnectionState) => void;
  /** The person's form for a server's request for input; absent headless, where such requests are refused. */
  elicit?: ElicitationPort;
  /** Sign-ins to HTTP servers that ask for OAuth; absent headless, where such a server fails with its 401. */
  oauth?: McpOAuth;
  /** Secrets one server gets at its start (McpConnectionOptions.secretEnv), by server name. */
  secretEnv?: (server: string) => Promise<Record<string, string>>;
  /** Told each secret a server is given (`secretEnv`, password inputs) before it starts: the redactor, so no echo carries it into a trace or prompt. */
  onSecret?: (value: string) => void;
  /** A server said its tools changed (list_changed): list them again and offer the new ones. */
  onToolsChanged?: (server: string) => void;
  /** The values of `${input:ID}` (McpConnectionOptions.inputs); absent: from the environment. */
  inputs?: McpInputPort;
}

/** A call's deadline and abort, and where its progress notes go (the step row). */
type McpCallOptions = { timeoutMs: number; signal?: AbortSignal; onProgress?: (note: string) => void };

/** One server's state, for the sidebar and getState. */
export interface McpServerStatus {
  name: string;
  source: McpServerDefinition['source'];
  transport: McpServerDefinition['transport'];
  /** What would run: the command line or the URL, shown before the person trusts it. */
  target: string;
  /** The definition's hash: consent binds to it. */
  hash: string;
  trusted: boolean;
  /**
   * `restricted`: the workspace is in Restricted Mode, so no server runs whatever its consent
   * (trusting the workspace is the way out); `untrusted`: the server lacks the person's yes.
   */
  state: McpConnectionState | 'untrusted' | 'restricted';
  lastError?: string;
  /** While `crashed`: whether it never started (`start`) or ran and exited (`exit`). */
  failedAt?: 'start' | 'exit';
  tools?: number;
}

export class McpServers implements McpCallPort {
  private readonly connections = new Map<string, { hash: string; connection: McpConnection }>();
  private readonly toolsByServer = new Map<string, McpTool[]>();
  /** What each server said about itself, for the definition (hash) that said it. */
  private readonly aboutByServer = new Map<string, { hash: string; text: string }>();

  constructor(private readonly deps: McpServersDeps) {}

  /** Definitions that may run now. */
  runnable(): McpServerDefinition[] {
    if (!this.deps.workspaceTrusted()) return [];
    return this.deps.definitions().filter((d) => this.deps.trusted(d));
  }

  /**
   * The set of each server that may run now, with one bounded line of its own words (known once it
   * has started and listed its tools), for the prompts and task_start. Same servers, same lines:
   * the prompts' stable prefix changes only when a server is trusted, edited or removed.
   */
  grantableSets(): GrantableSet[] {
    return this.runnable().map((d) => {
      const about = this.aboutByServer.get(d.name);
      return { name: mcpActionSet(d.name), about: about?.hash === d.hash ? about.text : `the tools of the MCP server ${d.name}` };
    });
  }

  status(): McpServerStatus[] {
    return this.deps.definitions().map((d) => {
      const workspaceTrusted = this.deps.workspaceTrusted();
      const trusted = workspaceTrusted && this.deps.trusted(d);
      const live = this.connections.get(d.name);
      const connection = live?.hash === d.hash ? live.connection : undefined;
      const tools = this.toolsByServer.get(d.name)?.length;
      return {
        name: d.name,
        source: d.source,
        transport: d.transport,
        target: d.transport === 'stdio' ? [d.command, ...d.args].join(' ') : d.url,
        hash: d.hash,
        trusted,
        state: !workspaceTrusted ? 'restricted' : trusted ? (connection?.state ?? 'stopped') : 'untrusted',
        ...(connection?.lastError ? { lastError: connection.lastError } : {}),
        ...(connection?.state === 'crashed' && connection.failedAt ? { failedAt: connection.failedAt } : {}),
        ...(tools !== undefined ? { tools } : {}),
      };
    });
  }

  /**
   * The actions of every runnable server (each started if needed to list its tools). The servers
   * start side by side, and one that cannot start, or waits out its restart backoff, is logged and
   * left out: a broken server never blocks a turn, nor holds back the tools of the others.
   */
  async actions(service: Pick<CommandService, 'request'>): Promise<ActionDef[]> {
    const listed = await this.eachRunnable('offers no tools now', async (definition) => {
      const tools = boundedTools(definition.name, await this.connection(definition).tools(), this.deps.logger);
      this.toolsByServer.set(definition.name, tools);
      const about = this.connection(definition).about;
      if (about) this.aboutByServer.set(definition.name, { hash: definition.hash, text: boundedAbout(about) });
      return tools;
    });
    const out: ActionDef[] = [];
    /** Action name → where it came from: two tools that spell the same name are never offered silently. */
    const taken = new Map<string, string>();
    // In definition order, whichever server answered first: the same names win every time.
    for (const { definition, value: tools } of listed) {
      // Offered only while this very definition may run: an edited or distrusted server's tools go away.
      const current = () => this.runnable().some((d) => d.name === definition.name && d.hash === definition.hash);
      for (const tool of tools) {
        // And only while the server still lists it: a tool a list_changed took away is not offered.
        const listed = () => current() && (this.toolsByServer.get(definition.name)?.some((t) => t.name === tool.name) ?? true);
        const name = mcpActionName(definition.name, tool.name);
        const from = `${definition.name}/${tool.name}`;
        const first = taken.get(name);
        if (first) {
          this.deps.logger.warn('HOST', `MCP tool ${from} is left out: its action name ${name} is already ${first}'s; rename one of them`);
          continue;
        }
        taken.set(name, from);
        out.push(toolAction(definition.name, tool, service, listed));
      }
    }
    return out;
  }

  /**
   * Starts every runnable server and lists its tools, side by side, and rejects naming each one
   * that cannot start with its error. For a run that must not go on without its servers (a chore
   * on the command line); a turn uses {@link actions}, which leaves a broken server out.
   */
  async startAll(): Promise<void> {
    const failures = await Promise.all(
      this.runnable().map(async (definition) => {
        try {
          await this.connection(definition).tools();
          return undefined;
        } catch (error) {
          return `the MCP server ${definition.name} could not start: ${error instanceof Error ? error.message : String(error)}`;
        }
      }),
    );
    const failed = failures.filter((f) => f !== undefined);
    if (failed.length) throw new Error(failed.join('; '));
  }

  /**
   * The resources and prompts of every runnable server, for the `@` picker (each started if needed,
   * as for tools). A server that cannot start or list is logged and left out.
   */
  async contextItems(): Promise<Array<{ server: string; resources: McpResourceInfo[]; prompts: McpPromptInfo[] }>> {
    const listed = await this.eachRunnable('offers no resources or prompts now', (definition) => this.connection(definition).contextItems());
    return listed.map(({ definition, value }) => ({ server: definition.name, ...value }));
  }

  /**
   * `list` for every runnable server at once, in definition order; a server that fails, or is
   * waiting out its restart backoff, is logged with `missing` and left out.
   */
  private async eachRunnable<T>(
    missing: string,
    list: (definition: McpServerDefinition) => Promise<T>,
  ): Promise<Array<{ definition: McpServerDefinition; value: T }>> {
    const settled = await Promise.all(
      this.runnable().map(async (definition) => {
        try {
          const wait = this.connection(definition).restartInMs();
          if (wait > 0) throw new Error(`it failed and may restart in ${Math.ceil(wait / 1000)} s`);
          return { definition, value: await list(definition) };
        } catch (error) {
          this.deps.logger.warn('HOST', `MCP server ${definition.name} ${missing}: ${error instanceof Error ? error.message : String(error)}`);
          return undefined;
        }
      }),
    );
    return settled.filter((entry) => entry !== undefined);
  }

  /** A resource's text, from a server that may still run (consent can be withdrawn while the picker is open). */
  async readResource(server: string, uri: string): Promise<string> {
    return this.runnableConnection(server).readResource(uri);
  }

  /** A prompt's messages as text, from a server that may still run. */
  async getPrompt(server: string, name: string, args: Record<string, string>): Promise<string> {
    return this.runnableConnection(server).getPrompt(name, args);
  }

  private runnableConnection(server: string): McpConnection {
    const definition = this.runnable().find((d) => d.name === server);
    if (!definition) throw new Error(`the MCP server ${server} is not trusted or not configured any more`);
    return this.connection(definition);
  }

  /** McpCallPort: runs an approved call. Refuses a server that is no longer trusted (consent withdrawn since the ask). */
  async call(server: string, tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CommandResult> {
    const started = this.deps.clock.now();
    const definition = this.runnable().find((d) => d.name === server);
    if (!definition) return failed(`The MCP server ${server} is not trusted or not configured any more; nothing was called.`, started, this.deps.clock);
    try {
      const result = await this.connection(definition).call(tool, args, options.signal, options.onProgress);
      return {
        exitCode: result.isError ? 1 : 0,
        output: result.text,
        truncatedChars: result.truncatedChars,
        timedOut: false,
        cancelled: false,
        durationMs: this.deps.clock.now() - started,
      };
    } catch (error) {
      // Stopped by the person: say so rather than the SDK's bare "operation was aborted".
      const message = options.signal?.aborted
        ? `The MCP tool ${server}/${tool} was stopped (Stop or Cancel) before it answered; the server was told to cancel it.`
        : error instanceof Error
          ? error.message
          : String(error);
      return { ...failed(message, started, this.deps.clock), timedOut: /did not answer within/.test(message), cancelled: options.signal?.aborted ?? false };
    }
  }

  readOnly(server: string, tool: string): boolean {
    return this.toolsByServer.get(server)?.find((t) => t.name === tool)?.annotations.readOnlyHint === true;
  }

  /** Stops the servers that may no longer run: definition changed or gone, consent withdrawn, Restricted Mode. */
  async prune(): Promise<void> {
    // Which to stop is decided at once, against one reading of the definitions: a server that
    // starts while a slow one stops (a trust given meanwhile) is not judged by this stale reading.
    const runnable = new Map(this.runnable().map((d) => [d.name, d.hash]));
    const stale = [...this.connections].filter(([name, live]) => runnable.get(name) !== live.hash);
    for (const [name] of stale) this.forget(name);
    await Promise.all(
      stale.map(async ([name, live]) => {
        await live.connection.stop();
        this.deps.logger.info('HOST', `MCP server ${name} stopped: its definition changed or it is no longer trusted`);
      }),
    );
  }

  /**
   * Signs in to a remote server now (the person asked to): it starts, and the person is asked to
   * sign in if the server wants it, even after they said no to an earlier ask.
   */
  async signIn(server: string): Promise<void> {
    this.deps.oauth?.allowSignIn(server);
    const connection = this.runnableConnection(server);
    if (connection.state === 'crashed') await connection.stop();
    await connection.tools();
  }

  /** Deletes a server's sign-in (its tokens and registration) and stops it: its next use asks to sign in again. */
  async signOut(server: string): Promise<boolean> {
    if (!this.deps.oauth) return false;
    await this.connections.get(server)?.connection.stop();
    return this.deps.oauth.signOut(server);
  }

  /** Stops one server; its next use starts it again (with the secrets it gets then). */
  async stop(name: string): Promise<void> {
    const live = this.connections.get(name);
    if (!live) return;
    this.forget(name);
    await live.connection.stop();
  }

  /** Drops a server's connection and what it said about itself; stopping it is the caller's. */
  private forget(name: string): void {
    this.connections.delete(name);
    this.toolsByServer.delete(name);
    this.aboutByServer.delete(name);
  }

  /** Stops every server (window closing, trust withdrawn). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.connections.values()].map(({ connection }) => connection.stop()));
  }

  private connection(definition: McpServerDefinition): McpConnection {
    const live = this.connections.get(definition.name);
    if (live?.hash === definition.hash) return live.connection;
    // A changed definition is a different server: the old process must not keep serving it.
    if (live) void live.connection.stop();
    const { cwd, clock, logger, callTimeoutMs, idleStopMs, baseEnv, onStateChange, elicit, oauth, secretEnv, onSecret, onToolsChanged, inputs } = this.deps;
    const connection = new McpConnection({
      definition,
      cwd,
      clock,
      logger,
      ...(callTimeoutMs ? { callTimeoutMs } : {}),
      ...(idleStopMs ? { idleStopMs } : {}),
      ...(baseEnv ? { baseEnv } : {}),
      ...(onStateChange ? { onState: onStateChange } : {}),
      ...(elicit ? { elicit } : {}),
      ...(oauth ? { oauth } : {}),
      ...(secretEnv ? { secretEnv: () => secretEnv(definition.name) } : {}),
      ...(onSecret ? { onSecret } : {}),
      ...(onToolsChanged ? { onToolsChanged } : {}),
      ...(inputs ? { inputs } : {}),
    });
    this.connections.set(definition.name, { hash: definition.hash, connection });
    return connection;
  }
}

function failed(error: string, started: number, clock: Clock): CommandResult {
  return { exitCode: null, output: '', truncatedChars: 0, timedOut: false, cancelled: false, durationMs: clock.now() - started, error };
}
