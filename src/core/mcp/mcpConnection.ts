/**
 * One MCP server as a lazily started, self-healing connection: started on first use, restarted
 * after a crash (with backoff, so a server that dies at once is not respawned in a loop), stopped
 * when idle, its stderr in the log. Its environment is minimal: a stdio server gets only the
 * basics a process needs (PATH, HOME…) plus the `env` its definition names, never the editor's
 * or Tasklane's API keys.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { callDeadline } from './mcpLimits';
import type { Clock, Logger } from '../ports';
import type { McpServerDefinition } from './mcpConfig';
import { answerElicitation } from './mcpElicitation';
import { listContext, listTools } from './mcpLists';
import type { McpPromptInfo, McpResourceInfo, McpTool } from './mcpLists';
import { envInputs, inputValues } from './mcpInputs';
import type { McpInputPort } from './mcpInputs';
import { machineAuth } from './mcpMachineAuth';
import type { ElicitationPort } from './mcpElicitation';
import type { McpOAuth, ServerOAuth } from './mcpOAuth';
import { loadSdk, promptText, toText } from './mcpSdk';
import { openTransport } from './mcpTransport';
import type { McpCallResult, McpSdk } from './mcpSdk';

export type { McpPromptInfo, McpResourceInfo, McpTool } from './mcpLists';

/** `3/10 (30%): copying files`, bounded: what a server's notifications/progress says, for a person. */
export function progressNote(p: { progress: number; total?: number; message?: string }): string {
  const amount = p.total ? `${p.progress}/${p.total} (${Math.round((100 * p.progress) / p.total)}%)` : String(p.progress);
  return p.message ? `${amount}: ${p.message.replace(/\s+/g, ' ').slice(0, 120)}` : amount;
}

export type McpConnectionState = 'stopped' | 'starting' | 'ready' | 'crashed';

export interface McpConnectionOptions {
  definition: McpServerDefinition;
  /** The workspace folder: a stdio server's working directory unless its definition says `cwd`. */
  cwd: string;
  clock: Clock;
  logger: Logger;
  /** Per call (default 60 s): a hanging tool ends with a clear error. Read at each call, so a settings change applies at once. */
  callTimeoutMs?: number | (() => number);
  /** Stop the process after this long without a call (default 10 minutes). */
  idleStopMs?: number;
  /** The process environment the basics are picked from (default process.env, through the SDK). */
  baseEnv?: () => Record<string, string>;
  /** Told on every state change (the sidebar shows a broken server with its last error). */
  onState?: (server: string, state: McpConnectionState) => void;
  /** Asks the person when the server requests input (elicitation); without it (headless) such a request is refused. */
  elicit?: ElicitationPort;
  /** Signs in to an HTTP server that asks for OAuth; without it such a server fails to start with its 401. */
  oauth?: McpOAuth;
  /**
   * Variables only this server gets, read at each start and never shown or logged: the secrets its
   * enabled chores name for it. A rejection is a failed start with that message.
   */
  secretEnv?: () => Promise<Record<string, string>>;
  /** Told each value `secretEnv` gives and each secret a client-credentials sign-in reads, before use (the redactor). */
  onSecret?: (value: string) => void;
  /**
   * The server said its tools changed (`notifications/tools/list_changed`): the cached list is
   * dropped, and the listener lists again (a new tool reaches the agent mid-task).
   */
  onToolsChanged?: (server: string) => void;
  /** Gives the values of the definition's `${input:ID}` (asked once, kept); default: the environment (headless). */
  inputs?: McpInputPort;
}

/** Starting a server (npx may install it first) and listing its tools get longer than one call. */
const START_TIMEOUT_MS = 60_000;
const BACKOFF_MS = [1_000, 2_000, 5_000, 15_000, 60_000];
/** The SDK's own limit on a call, past any form a person could be filling in. */
const BACKSTOP_TIMEOUT_MS = 24 * 60 * 60_000;

export class McpConnection {
  private client: Client | undefined;
  private starting: Promise<Client> | undefined;
  private toolList: McpTool[] | undefined;
  /** Counts list_changed notifications, so a list read across one is not kept. */
  private toolsGeneration = 0;
  private idleTimer: { cancel(): void } | undefined;
  private stopping = false;
  private crashes = 0;
  private restartAt = 0;
  private lastErrorText: string | undefined;
  /** Whether the last failure was a start that failed (`start`) or a running process that exited (`exit`). */
  private failure: 'start' | 'exit' | undefined;
  private current: McpConnectionState = 'stopped';
  private aboutText: string | undefined;
  /** Elicitation forms open now: a call's timeout does not run out while the person is typing. */
  private eliciting = 0;
  private sdk: McpSdk | undefined;
  /** The sign-in of an HTTP server (when the host offers sign-ins) and its transport, for a sign-in mid-session. */
  private auth: ServerOAuth | undefined;
  private httpTransport: { finishAuth(code: string): Promise<void> } | undefined;

  constructor(private readonly options: McpConnectionOptions) {}

  get name(): string {
    return this.options.definition.name;
  }

  get state(): McpConnectionState {
    return this.current;
  }

  private set stateValue(state: McpConnectionState) {
    if (state === this.current) return;
    this.current = state;
    this.options.onState?.(this.name, state);
  }

  /** The last start or crash error, for the sidebar. */
  get lastError(): string | undefined {
    return this.lastErrorText;
  }

  /** What the last failure was, while the server is `crashed`: it never started, or it exited. */
  get failedAt(): 'start' | 'exit' | undefined {
    return this.failure;
  }

  /**
   * What the server said about itself when it last started (its description, else its
   * instructions, else its title), unbounded and untrusted: the caller bounds it (`boundedAbout`).
   */
  get about(): string | undefined {
    return this.aboutText;
  }

  /**
   * How long until a server that failed may start again (0 when it may start now or is running).
   * A listing skips a server that is waiting out its backoff rather than wait for it; a call waits.
   */
  restartInMs(): number {
    return this.client ? 0 : Math.max(0, this.restartAt - this.options.clock.now());
  }

  /** The server's tools, every page (starts it if needed); cached until it restarts or says they changed. */
  async tools(): Promise<McpTool[]> {
    if (this.toolList) return this.toolList;
    // A list_changed that arrives while this list is read makes it stale: it is returned, not kept.
    const generation = this.toolsGeneration;
    const listed = await this.signingIn((client) => listTools(client, this.name, START_TIMEOUT_MS, this.options.logger));
    if (generation === this.toolsGeneration) this.toolList = listed;
    return listed;
  }

  /**
   * The server's resources and prompts (starts it if needed, like listing tools). A server that
   * does not declare the capability has none; every page, as for tools.
   */
  async contextItems(): Promise<{ resources: McpResourceInfo[]; prompts: McpPromptInfo[] }> {
    return this.signingIn((client) => listContext(client, this.name, this.timeoutMs, this.options.logger));
  }

  /** One resource's contents: text parts as they are, binary parts named. */
  async readResource(uri: string): Promise<string> {
    const result = await this.signingIn((client) => client.readResource({ uri }, { timeout: this.timeoutMs }));
    return result.contents.map((c) => ('text' in c && typeof c.text === 'string' ? c.text : `[binary ${c.mimeType ?? 'content'} ${c.uri}]`)).join('\n');
  }

  /** A prompt's messages as text (`role: text`), with the arguments given. */
  async getPrompt(name: string, args: Record<string, string>): Promise<string> {
    const result = await this.signingIn((client) => client.getPrompt({ name, arguments: args }, { timeout: this.timeoutMs }));
    return promptText(result.messages);
  }

  /** Calls a tool; rejects with a message for the model on timeout, abort or a dead server. */
  async call(tool: string, args: Record<string, unknown>, signal?: AbortSignal, onProgress?: (note: string) => void): Promise<McpCallResult> {
    await this.connect();
    this.touch();
    const deadline = callDeadline(this.options.clock, this.timeoutMs, signal, () => this.eliciting > 0);
    let last: string | undefined;
    // The SDK's own timeout is only a backstop: the deadline waits while a form is open. Giving
    // `onprogress` makes the SDK send a progress token, so a long tool can say how far it is.
    const options = {
      timeout: BACKSTOP_TIMEOUT_MS,
      signal: deadline.signal,
      onprogress: (p: { progress: number; total?: number; message?: string }) => {
        last = progressNote(p);
        this.touch();
        onProgress?.(last);
      },
    };
    try {
      const result = await this.signingIn((client) => client.callTool({ name: tool, arguments: args }, undefined, options));
      const text = toText(result as { content?: unknown[]; structuredContent?: unknown; isError?: boolean });
      // The last progress the tool reported stays with its result (what the step row showed last).
      return last ? { ...text, text: `${text.text}\n[progress: ${last}]` } : text;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/timed out|timeout/i.test(message)) {
        throw new Error(
          `The MCP tool ${this.name}/${tool} did not answer within ${Math.round(this.timeoutMs / 1000)} s and was abandoned. Try again later or with smaller input.`,
          { cause: error },
        );
      }
      throw new Error(`The MCP tool ${this.name}/${tool} failed: ${message}`, { cause: error });
    } finally {
      deadline.cancel();
      this.touch();
    }
  }

  /** Stops the server (idle, shutdown, consent withdrawn). The next use starts it again. */
  async stop(): Promise<void> {
    this.idleTimer?.cancel();
    this.idleTimer = undefined;
    const client = this.client;
    this.client = undefined;
    this.starting = undefined;
    this.toolList = undefined;
    this.stateValue = 'stopped';
    if (!client) return;
    this.stopping = true;
    try {
      await client.close();
    } catch (error) {
      this.options.logger.warn('HOST', `MCP server ${this.name}: close failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.stopping = false;
    }
  }

  private get timeoutMs(): number {
    const configured = typeof this.options.callTimeoutMs === 'function' ? this.options.callTimeoutMs() : this.options.callTimeoutMs;
    return configured && configured > 0 ? configured : 60_000;
  }

  private async connect(): Promise<Client> {
    if (this.client) return this.client;
    this.starting ??= this.start();
    try {
      return await this.starting;
    } finally {
      this.starting = undefined;
    }
  }

  private async start(): Promise<Client> {
    const { clock, logger, definition } = this.options;
    const wait = this.restartAt - clock.now();
    if (wait > 0) {
      logger.info('HOST', `MCP server ${this.name}: restarting in ${wait} ms (crash ${this.crashes})`);
      await new Promise<void>((resolve) => clock.setTimeout(resolve, wait));
    }
    this.stateValue = 'starting';
    // Loaded on the first start; a failure to load is a failed start like any other.
    let client: Client | undefined;
    try {
      const sdk = (this.sdk = await loadSdk());
      const secrets = (await this.options.secretEnv?.()) ?? {};
      for (const value of Object.values(secrets)) this.options.onSecret?.(value); // before the server could echo one
      const inputs = await inputValues(definition, this.options.inputs ?? envInputs(), this.options.onSecret);
      // The client's own credentials (no person, no browser) where the definition says so; else a person's sign-in.
      const machine = machineAuth(sdk, definition, { server: secrets, ...(this.options.onSecret ? { onSecret: this.options.onSecret } : {}) });
      const auth =
        machine ??
        (definition.transport === 'http' && this.options.oauth
          ? await this.options.oauth.provider(definition.name, definition.url, definition.oauth)
          : undefined);
      try {
        client = await this.open(sdk, auth, secrets, inputs);
      } catch (error) {
        // A server that wants a sign-in answers 401 and the SDK records its page: the person is asked, then once more.
        if (!(await this.signedInAgain(error, auth))) throw error;
        client = await this.open(sdk, auth, secrets, inputs);
      }
    } catch (error) {
      // Error first, then state: the state listener reads both.
      this.lastErrorText = error instanceof Error ? error.message : String(error);
      this.failure = 'start';
      this.stateValue = 'crashed';
      this.noteCrash();
      throw new Error(`The MCP server ${this.name} could not start: ${this.lastErrorText}`, { cause: error });
    }
    this.client = client;
    const info = client.getServerVersion();
    this.aboutText = [info?.description, client.getInstructions(), info?.title].find((text) => typeof text === 'string' && text.trim()) ?? undefined;
    this.stateValue = 'ready';
    logger.info('HOST', `MCP server ${this.name} (${definition.transport}) started`);
    this.touch();
    return client;
  }

  /** A client with its transport, connected. */
  private async open(sdk: McpSdk, auth: OAuthClientProvider | undefined, secrets: Record<string, string>, inputs: Record<string, string>): Promise<Client> {
    // Elicitation is declared everywhere (form mode): headless, a request gets a clear refusal
    // rather than a server quietly going on without what it asked for.
    const client = new sdk.Client(
      { name: 'tasklane', version: '0.1.0' },
      {
        capabilities: { elicitation: { form: { applyDefaults: true } } },
        // Not refreshed here: the list is read again (every page) when next asked for, by the listener at once.
        listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => this.toolsChanged(client) } },
      },
    );
    client.setRequestHandler(sdk.ElicitRequestSchema, async (request, extra) => {
      this.eliciting++;
      try {
        return await answerElicitation(this.name, this.options.elicit, this.options.logger, request.params, extra.signal);
      } finally {
        this.eliciting--;
        this.touch();
      }
    });
    const transport = this.transport(sdk, auth, secrets, inputs);
    this.httpTransport = transport instanceof sdk.StreamableHTTPClientTransport || transport instanceof sdk.SSEClientTransport ? transport : undefined;
    transport.onclose = () => this.closed(client);
    try {
      await client.connect(transport, { timeout: START_TIMEOUT_MS });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    return client;
  }

  /**
   * A request to the server (started if needed). When the server asks for a sign-in on it, not at
   * the start (a 401, or a 403 for a missing scope), the person is asked and it runs once more.
   */
  private async signingIn<T>(request: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.connect();
    this.touch();
    try {
      return await request(client);
    } catch (error) {
      if (!(await this.signedInAgain(error))) throw error;
      return request(client);
    }
  }

  /**
   * After a 401 the SDK could not answer with saved or refreshed tokens (it recorded a sign-in
   * page instead): asks the person, waits for the browser, trades the code for tokens. False when
   * `error` is not that.
   */
  private async signedInAgain(error: unknown, provider: OAuthClientProvider | undefined = this.auth): Promise<boolean> {
    const auth = provider && 'takeAuthorizationUrl' in provider ? (provider as ServerOAuth) : undefined;
    const page = auth?.takeAuthorizationUrl();
    if (!auth || !page || !this.sdk || !(error instanceof this.sdk.UnauthorizedError) || !this.httpTransport) return false;
    this.options.logger.info('HOST', `MCP server ${this.name} asks for a sign-in`);
    const code = await auth.authorize(page);
    await this.httpTransport.finishAuth(code);
    this.options.logger.info('HOST', `MCP server ${this.name}: signed in`);
    return true;
  }

  private transport(sdk: McpSdk, auth: OAuthClientProvider | undefined, secrets: Record<string, string>, inputs: Record<string, string>): Transport {
    // Only a person's sign-in is asked for mid-session; the client's own credentials are sent by the SDK.
    this.auth = auth && 'takeAuthorizationUrl' in auth ? (auth as ServerOAuth) : undefined;
    const { definition, cwd, baseEnv, logger } = this.options;
    return openTransport(sdk, definition, {
      cwd,
      auth,
      secrets,
      inputs,
      ...(baseEnv ? { baseEnv } : {}),
      stderr: (line) => logger.info('HOST', `MCP ${this.name} stderr: ${line}`),
    });
  }

  private toolsChanged(client: Client): void {
    // Before `client` is the current one it may still be starting (a server registers tools on `initialized`).
    if (this.client && this.client !== client) return;
    this.toolsGeneration++;
    this.toolList = undefined;
    this.options.logger.info('HOST', `MCP server ${this.name}: its tools changed; listing them again`);
    this.options.onToolsChanged?.(this.name);
  }

  private closed(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.toolList = undefined;
    this.idleTimer?.cancel();
    if (this.stopping) return;
    this.lastErrorText = 'the server process exited';
    this.failure = 'exit';
    this.stateValue = 'crashed';
    this.noteCrash();
    this.options.logger.warn(
      'HOST',
      `MCP server ${this.name} exited unexpectedly; it restarts on next use (after ${this.restartAt - this.options.clock.now()} ms)`,
    );
  }

  private noteCrash(): void {
    this.restartAt = this.options.clock.now() + (BACKOFF_MS[Math.min(this.crashes, BACKOFF_MS.length - 1)] ?? 60_000);
    this.crashes++;
  }

  private touch(): void {
    this.idleTimer?.cancel();
    this.idleTimer = this.options.clock.setTimeout(() => void this.stop(), this.options.idleStopMs ?? 10 * 60_000);
  }
}
