import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Ledger } from '../../../src/core/actions/ledger';
import { DbCommandApprovalStore } from '../../../src/core/approval/commands/commandApproval';
import { CommandService } from '../../../src/core/approval/commands/commandService';
import { definitionHash, parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import type { McpServerDefinition } from '../../../src/core/mcp/mcpConfig';
import { mcpActionName, McpServers, MAX_TOOL_DESCRIPTION } from '../../../src/core/mcp/mcpServers';
import type { ActionContext, ActionDef } from '../../../src/core/actions/types';
import { systemClock } from '../../../src/core/ports';
import { openDurableDb } from '../../../src/core/store/durableDb';
import type { OpenedDurableDb } from '../../../src/core/store/durableDb';
import { createTriggerStore } from '../../../src/core/store/triggerStore';
import type { StartingTriggerStore } from '../../../src/core/store/triggerStore';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';
import { sqlJs } from '../store/helpers';

// The MCP servers here are the reference servers from the npm registry, not written here.
const root = path.resolve(__dirname, '../../..');
const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const filesystem = path.join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

function stdio(name: string, args: string[], source: 'workspace' | 'user' = 'workspace'): McpServerDefinition {
  const { servers, problems } = parseMcpServers({ servers: { [name]: { type: 'stdio', command: process.execPath, args } } }, source);
  assert.deepEqual(problems, []);
  return servers[0]!;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Rig {
  servers: McpServers;
  service: CommandService;
  actions: ActionDef[];
  triggers: StartingTriggerStore;
  db: OpenedDurableDb;
  approvals: string[];
  logger: MemoryLogger;
  /** Runs an action in task t-1; `progress` is its step row's (ActionContext.progress), `signal` the turn's Stop/Cancel. */
  run(name: string, input: unknown, progress?: (note: string) => void, signal?: AbortSignal): Promise<string>;
  close(): Promise<void>;
}

describe('mcp: reference servers as approval-gated tools', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  const rigs: Rig[] = [];
  const temp = (label: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tasklane-mcp-${label}-`));
    dirs.push(dir);
    return dir;
  };

  async function rig(
    definitions: McpServerDefinition[],
    options: {
      trusted?: (d: McpServerDefinition) => boolean;
      allowed?: string[];
      workspaceTrusted?: boolean;
      callTimeoutMs?: number;
      onStateChange?: (server: string, state: string) => void;
    } = {},
  ): Promise<Rig> {
    const dir = temp('store');
    const logger = new MemoryLogger();
    const db = await openDurableDb({ dir, sqlJs: await sqlJs(), clock: systemClock });
    const triggers = await createTriggerStore(db, { clock: systemClock, logger });
    const servers = new McpServers({
      definitions: () => definitions,
      trusted: options.trusted ?? (() => true),
      workspaceTrusted: () => options.workspaceTrusted ?? true,
      cwd: dir,
      clock: systemClock,
      logger,
      ...(options.callTimeoutMs ? { callTimeoutMs: options.callTimeoutMs } : {}),
      ...(options.onStateChange ? { onStateChange: options.onStateChange } : {}),
    });
    const service = new CommandService({
      store: new DbCommandApprovalStore(db, systemClock),
      runner: { runCommand: () => Promise.reject(new Error('no commands here')), runTask: () => Promise.reject(new Error('no tasks here')) },
      mcp: servers,
      gate: { allowedCommands: () => options.allowed ?? [], trusted: () => options.workspaceTrusted ?? true },
      ledger: new Ledger(db, systemClock),
      triggers,
      clock: systemClock,
      logger,
    });
    const actions = await servers.actions(service);
    const approvals: string[] = [];
    const ctx = (progress?: (note: string) => void, signal?: AbortSignal): ActionContext => ({
      sessionId: 's-1',
      taskId: 't-1',
      workspace: new MemoryWorkspace({}),
      turn: {
        say() {},
        startTask: () => 'x',
        endTask() {},
        askUser() {},
        waitUntil() {},
        ignore() {},
        setTodos() {},
        needsApproval: (id) => void approvals.push(id),
      },
      now: () => Date.now(),
      logger,
      remember: async () => undefined,
      skillNames: [],
      ...(progress ? { progress } : {}),
      ...(signal ? { signal } : {}),
    });
    const made: Rig = {
      servers,
      service,
      actions,
      triggers,
      db,
      approvals,
      logger,
      async run(name, input, progress, signal) {
        const action = actions.find((a) => a.name === name);
        assert.ok(action, `no action ${name}; have ${actions.map((a) => a.name).join(', ')}`);
        return String(await action.run(action.input.parse(input), ctx(progress, signal)));
      },
      async close() {
        await servers.stopAll();
        await triggers.close();
        await db.close();
      },
    };
    rigs.push(made);
    return made;
  }

  it('an allowlisted long tool: its progress reaches the step row through the command service, and its result keeps the last', async () => {
    const r = await rig([stdio('everything', [everything, 'stdio'])], { allowed: ['mcp:everything/trigger-long-running-operation'] });
    const notes: string[] = [];
    const output = await r.run('mcp_everything_trigger_long_running_operation', { duration: 1.5, steps: 3 }, (note) => notes.push(note));
    // A note that reaches the client in the same read as the result is dropped: the SDK settles the
    // response first and then has no progress handler for it. Which ones do depends on the load, so
    // the test asks for the notes in order, the first one surely (half a second before the next),
    // and the result keeping whichever came last.
    assert.ok(notes.length >= 1, 'no progress note reached the step row');
    assert.deepEqual(notes, ['1/3 (33%)', '2/3 (67%)', '3/3 (100%)'].slice(0, notes.length));
    assert.match(output, /Long running operation completed\. Duration: 1\.5 seconds, Steps: 3\./);
    assert.ok(output.endsWith(`[progress: ${notes.at(-1)}]`), output);
  });

  it('Stop during a long allowlisted tool ends the call at once, and says it was stopped', async () => {
    const r = await rig([stdio('everything', [everything, 'stdio'])], { allowed: ['mcp:everything/trigger-long-running-operation', 'mcp:everything/echo'] });
    const stop = new AbortController();
    const started = Date.now();
    // Stopped when the tool is known to be running (its first progress note), not after a sleep.
    const output = await r.run('mcp_everything_trigger_long_running_operation', { duration: 20, steps: 20 }, () => stop.abort(), stop.signal);
    assert.match(output, /could not run: The MCP tool everything\/trigger-long-running-operation was stopped \(Stop or Cancel\) before it answered/);
    // The tool would run 20 s; stopped at its first step (about 1 s), it must not run to the end.
    assert.ok(Date.now() - started < 10_000, `the call ran ${Date.now() - started} ms after Stop`);
    // The server is still usable: the stopped call did not take its connection down.
    assert.match(await r.run('mcp_everything_echo', { message: 'after stop' }), /Echo: after stop/);
  });

  /** The note the approved call woke its task with. */
  function wakeNote(r: Rig, approvalId: string): string {
    const trigger = r.triggers.pending().find((t) => (t.payload as { approvalId?: string } | null)?.approvalId === approvalId);
    assert.ok(trigger, `a wake-up trigger for ${approvalId}`);
    return (trigger.payload as { note: string }).note;
  }

  afterEach(async () => {
    for (const r of rigs.splice(0)) await r.close();
  });
  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads mcp.json entries, reports bad ones, and hashes a definition independent of key order', () => {
    const { servers, problems } = parseMcpServers(
      {
        servers: {
          a: { command: 'node', args: ['x'] },
          b: { type: 'http', url: 'http://127.0.0.1:1/mcp' },
          'bad name!': { command: 'x' },
          c: { type: 'http' },
        },
      },
      'workspace',
    );
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport]),
      [
        ['a', 'stdio'],
        ['b', 'http'],
      ],
    );
    assert.deepEqual(
      problems.map((p) => p.name),
      ['bad name!', 'c'],
    );
    assert.equal(definitionHash({ x: 1, y: [1, { b: 2, a: 1 }] }), definitionHash({ y: [1, { a: 1, b: 2 }], x: 1 }));
    const [changed] = parseMcpServers({ servers: { a: { command: 'node', args: ['y'] } } }, 'workspace').servers;
    assert.notEqual(changed!.hash, servers[0]!.hash, 'a changed argument is a new definition');
  });

  it('an untrusted server offers no tools and starts no process; Restricted Mode starts none either', async () => {
    const marker = `tasklane-untrusted-${process.pid}`;
    const untrusted = await rig([stdio('everything', [everything, 'stdio', marker])], { trusted: () => false });
    assert.deepEqual(untrusted.actions, []);
    assert.equal(untrusted.servers.status()[0]?.state, 'untrusted');
    const restricted = await rig([stdio('everything', [everything, 'stdio', marker], 'user')], { workspaceTrusted: false });
    assert.deepEqual(restricted.actions, []);
    // Its own consent is there: Restricted Mode, not the server, is what keeps it off.
    assert.equal(restricted.servers.status()[0]?.state, 'restricted');
    assert.equal(
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes(marker)).length,
      0,
      'no server process',
    );
  });

  it('a trusted server: the call waits for approval, then the real result reaches the task', async () => {
    const r = await rig([stdio('everything', [everything, 'stdio'])]);
    const names = r.actions.map((a) => a.name);
    for (const tool of ['echo', 'get-sum', 'get-env', 'trigger-long-running-operation'])
      assert.ok(names.includes(mcpActionName('everything', tool)), `${tool} in ${names.join(', ')}`);
    for (const action of r.actions) assert.ok(action.description.length <= MAX_TOOL_DESCRIPTION + 200, `${action.name}'s description is bounded`);
    const asked = await r.run('mcp_everything_echo', { message: 'hello from tasklane' });
    assert.match(asked, /Asked the user to approve the MCP tool everything\/echo/);
    assert.equal(r.approvals.length, 1);
    const [pending] = await r.service.pending();
    assert.equal(pending?.kind, 'mcp');
    assert.equal(pending?.input, JSON.stringify({ message: 'hello from tasklane' }));
    await r.service.approve(r.approvals[0]!);
    assert.match(wakeNote(r, r.approvals[0]!), /MCP tool everything\/echo returned:\nEcho: hello from tasklane/);
  });

  it('a rejected call never reaches the server; an allowlisted exact server+tool runs at once', async () => {
    const r = await rig([stdio('everything', [everything, 'stdio'])], { allowed: ['mcp:everything/get-sum'] });
    assert.match(await r.run('mcp_everything_get_sum', { a: 2, b: 3 }), /returned:\n.*5/);
    await r.run('mcp_everything_echo', { message: 'no' });
    await r.service.reject(r.approvals[0]!, 'not now');
    assert.match(wakeNote(r, r.approvals[0]!), /rejected MCP tool everything\/echo: not now/);
  });

  it("the server's environment holds no API key from the editor's environment", async () => {
    const saved = { OPENAI_API_KEY: process.env.OPENAI_API_KEY, ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY };
    process.env.OPENAI_API_KEY = 'sk-editor-secret-openai';
    process.env.ANTHROPIC_API_KEY = 'sk-ant-editor-secret';
    try {
      const r = await rig([stdio('everything', [everything, 'stdio'])], { allowed: ['mcp:everything/get-env'] });
      const out = await r.run('mcp_everything_get_env', {});
      assert.match(out, /"PATH"/, 'the basics are there');
      assert.doesNotMatch(out, /editor-secret|OPENAI_API_KEY|ANTHROPIC_API_KEY/);
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });

  it('a killed server is restarted on the next call', async () => {
    const marker = `tasklane-kill-${process.pid}-${Date.now()}`;
    let crashed!: () => void;
    const crash = new Promise<void>((resolve) => (crashed = resolve));
    const r = await rig([stdio('everything', [everything, 'stdio', marker])], {
      allowed: ['mcp:everything/echo'],
      onStateChange: (_server, state) => state === 'crashed' && crashed(),
    });
    assert.match(await r.run('mcp_everything_echo', { message: 'one' }), /Echo: one/);
    const pids = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes(marker))
      .map((l) => Number(l.trim().split(/\s+/)[0]));
    assert.equal(pids.length, 1);
    process.kill(pids[0]!, 'SIGKILL');
    // The connection notices the exit (its state change is the signal), then restarts on use.
    await crash;
    assert.equal(r.servers.status()[0]?.state, 'crashed');
    assert.match(await r.run('mcp_everything_echo', { message: 'two' }), /Echo: two/);
    assert.ok(
      r.logger.lines.some((l) => /exited unexpectedly/.test(l)),
      'the crash is in the log',
    );
  });

  it('a server started while a removed one is still stopping keeps running (its call succeeds)', async () => {
    // The order a workbench gave: one server's settings removed (prune starts stopping it), a
    // repository server trusted meanwhile starts and is called. The prune must not judge the
    // newcomer by the definitions it read before it existed.
    const definitions = [stdio('old', [everything, 'stdio'], 'user')];
    const r = await rig(definitions, { allowed: ['mcp:old/echo'] });
    assert.match(await r.run('mcp_old_echo', { message: 'running' }), /Echo: running/);
    definitions.splice(0, 1);
    const pruning = r.servers.prune();
    definitions.push(stdio('fresh', [everything, 'stdio'], 'user'));
    const call = r.servers.call('fresh', 'echo', { message: 'started meanwhile' }, { timeoutMs: 30_000 });
    await pruning;
    const result = await call;
    assert.equal(result.exitCode, 0, result.output);
    assert.match(result.output, /Echo: started meanwhile/);
    assert.deepEqual(
      r.servers.status().map((s) => [s.name, s.state]),
      [['fresh', 'ready']],
    );
    assert.equal(r.logger.lines.filter((l) => /stopped: its definition changed/.test(l)).length, 1, 'only the removed server stopped');
  });

  it('a hanging call times out with a clear error', async () => {
    const r = await rig([stdio('everything', [everything, 'stdio'])], { allowed: ['mcp:everything/trigger-long-running-operation'], callTimeoutMs: 1_000 });
    const out = await r.run('mcp_everything_trigger_long_running_operation', { duration: 30, steps: 3 });
    assert.match(out, /could not run: The MCP tool everything\/trigger-long-running-operation did not answer within 1 s/);
  });

  it('server-filesystem scoped to a temp folder: lists it, and refuses a path outside', async () => {
    const scope = temp('scope');
    fs.writeFileSync(path.join(scope, 'notes.txt'), 'scoped file\n');
    const r = await rig([stdio('fs', [filesystem, scope])], { allowed: ['mcp:fs/list_directory', 'mcp:fs/read_text_file'] });
    assert.match(await r.run('mcp_fs_list_directory', { path: scope }), /notes\.txt/);
    assert.match(await r.run('mcp_fs_read_text_file', { path: path.join(scope, 'notes.txt') }), /scoped file/);
    assert.match(await r.run('mcp_fs_read_text_file', { path: '/etc/hostname' }), /returned an error|denied|outside/i);
  });

  it('server-everything over Streamable HTTP', async () => {
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, [everything, 'streamableHttp'], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let seen = '';
        child.stderr?.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (/listening on port/.test(seen)) resolve();
        });
        child.on('exit', (code) => reject(new Error(`server-everything exited ${code}: ${seen}`)));
      });
      const [http] = parseMcpServers({ servers: { web: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } } }, 'user').servers;
      const r = await rig([http!], { allowed: ['mcp:web/echo'] });
      assert.match(await r.run('mcp_web_echo', { message: 'over http' }), /Echo: over http/);
    } finally {
      child.kill();
    }
  });
});
