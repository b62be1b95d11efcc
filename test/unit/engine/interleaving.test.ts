/**
 * Model-based interleaving test: seeded random schedules of what a person does while the agent
 * works (send, reply to a task, cancel, stop, stop a task after its step, approve, reject, continue, cancel a paused task) plus process
 * crashes, against the real engine and store, the scripted model server held at gates mid-stream
 * (a slow, streaming model without sleeps) through the real SDKs, and commands that run until
 * released. After each schedule the invariants of issue "the loop under real use" are checked.
 *
 * TASKLANE_SEED=<n> replays one schedule (every failing seed is printed); TASKLANE_SCHEDULES=<n>
 * sets how many run: 100 by default (pull requests), 500 nightly (TASKLANE_SCHEDULES=500).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TaskView } from '../../../src/core/engine/types';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer, RecordedRequest } from '../../fixtures/modelServer';
import { FakeClock } from '../../fakes/fakeClock';
import { crashCopy, flatten, GatedRunner, openWorld, policy, requestKind, rng } from './interleavingWorld';
import type { World } from './interleavingWorld';

const SCHEDULES = Number(process.env.TASKLANE_SCHEDULES ?? 100);
/** Person actions per schedule: small schedules, many of them (the bugs need two or three overlapping steps). */
const STEPS = 8;

interface Sent {
  token: string;
  sessionId?: string;
  taskId?: string;
  acked: boolean;
}

interface Inflight {
  label: string;
  done: boolean;
  /** True while it waits on something only the schedule can end (a command it runs). */
  blocked?: () => boolean;
}

interface Stopped {
  taskId?: string;
  sessionId: string;
  token?: string;
  requestIndex: number;
  runIndex: number;
}

interface Seen {
  request: RecordedRequest;
  world: number;
}

/**
 * Storage for the schedules: a RAM-backed folder where there is one (fsync costs nothing there,
 * and 500 schedules fsync thousands of times; what is durable when is the same either way).
 */
function scratchRoot(): string {
  return process.platform === 'linux' && fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
}

const turns = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

async function runSchedule(seed: number, server: ModelServer, log: string[]): Promise<string[]> {
  const pick = rng(seed);
  const chunks = rng(seed ^ 0x9e3779b9);
  const wire = seed % 2 ? 'anthropic' : 'openai';
  const clock = new FakeClock();
  const tasks = new Map<string, TaskView>();
  const violations: string[] = [];
  const seen: Seen[] = [];
  const sent: Sent[] = [];
  const stops: Stopped[] = [];
  /**
   * Stops after a step (the block's Stop) that resolved, with the requests seen then; `moved` once
   * something may run the task again (Continue, a reply, a decision, a crash's re-run).
   */
  const stepStops: Array<{ taskId: string; token?: string; requestIndex: number; moved: boolean }> = [];
  const moved = (taskId?: string) => {
    for (const s of stepStops) if (!taskId || s.taskId === taskId) s.moved = true;
  };
  const inflight: Inflight[] = [];
  const dirs: string[] = [];
  let gating = true;
  let gateN = 0;
  let tokenN = 0;
  server.reset();
  const runner = new GatedRunner(() => world.n);
  const firstDir = fs.mkdtempSync(path.join(scratchRoot(), 'tasklane-il-'));
  dirs.push(firstDir);
  let world: World = await openWorld(0, wire, server, runner, clock, firstDir, tasks);
  let alive = world;

  server.respond(async (request) => {
    const current = world;
    seen.push({ request, world: current.n });
    const kind = requestKind(request);
    if (kind === 'task') await checkNotRun(current, request);
    const step = policy(request, `g${gateN++}`, Math.floor(chunks() * 4));
    if (!gating) {
      delete step.gate;
      delete step.holdAfterChunks;
    }
    return step;
  });

  /** A tool result reading "not run" for a call whose action started (it ran, or may have). */
  async function checkNotRun(current: World, request: RecordedRequest): Promise<void> {
    const notRun = flatten(request)
      .flatMap((m) => m.results)
      .filter(([, content]) => /Not run: the turn was interrupted/.test(content));
    if (!notRun.length) return;
    const token = JSON.stringify(request.body).match(/job (M\d+) plan:/)?.[1];
    const task = [...tasks.values()].find((t) => t.instruction.startsWith(`job ${token} `));
    if (!task) return;
    const events = await current.h.agent.views.readTaskEvents(task.id, { limit: 100_000 }).catch(() => []);
    for (const [callId] of notRun) {
      if (events.some((e) => e.kind === 'action_start' && e.data.callId === callId)) {
        violations.push(`tool result replaced by "not run" for ${callId} of ${task.id}, whose action started (it ran or may have)`);
      }
    }
  }

  const track = (label: string, promise: Promise<unknown>, blocked?: () => boolean, onDone?: () => void): void => {
    const entry: Inflight = { label, done: false, ...(blocked ? { blocked } : {}) };
    const mine = world;
    inflight.push(entry);
    promise.then(
      () => {
        entry.done = true;
        if (mine === alive) onDone?.();
      },
      () => {
        entry.done = true;
      },
    );
  };

  // Cheap to read (no query): what moves when anything in the world moves.
  const activity = () =>
    `${seen.length}|${server.holding.join(',')}|${runner.runs.map((r) => r.state[0]).join('')}|${inflight.filter((i) => i.done).length}|${world.h.changes.length}|${world.h.logger.lines.length}`;
  const signature = () =>
    `${activity()}|${world.h.triggers
      .pending()
      .map((x) => `${x.id}:${x.status}:${x.fireAt}`)
      .join(',')}`;
  const blocked = () => {
    const now = clock.now();
    const triggers = world.h.triggers.pending();
    const claimed = triggers.some((x) => x.status === 'claimed');
    const due = triggers.some((x) => x.status === 'pending' && x.fireAt <= now);
    const consumer = (!claimed && !due) || server.holding.length > 0 || runner.running().length > 0;
    return consumer && inflight.every((i) => i.done || i.blocked?.());
  };
  /**
   * Waits until the world can only move by a schedule step: the consumer is idle or held at a
   * gate or in a command, and every person action in flight is done or waits on a command.
   */
  const settle = async () => {
    let last = '';
    let stable = 0;
    for (let i = 0; i < 4000; i++) {
      await turns();
      const now = activity();
      stable = now === last ? stable + 1 : 0;
      last = now;
      if (stable >= 2) {
        const before = signature();
        if (blocked()) {
          await turns();
          if (signature() === before) return;
        }
        stable = 0;
      }
    }
    throw new Error(`seed ${seed}: the world did not settle (${signature()})`);
  };

  const liveTasks = () => world.h.agent.views.snapshot().tasks.filter((t) => t.status === 'running' || t.status === 'paused');
  const choose = <T>(list: T[]): T => list[Math.floor(pick() * list.length)]!;
  const newToken = () => `M${++tokenN}`;

  const send = (text: string, token: string, options: { sessionId?: string; replyToTaskId?: string }) => {
    const entry: Sent = {
      token,
      acked: false,
      ...(options.replyToTaskId ? { taskId: options.replyToTaskId } : {}),
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
    };
    sent.push(entry);
    const mine = world;
    track(
      `send ${token}`,
      world.h.agent.sendMessage(text, options).then((r) => {
        if (mine === alive) {
          entry.acked = true;
          entry.sessionId = r.sessionId;
        }
      }),
    );
  };

  const stopMark = (sessionId: string, taskId?: string): Stopped => ({
    sessionId,
    ...(taskId ? { taskId, token: tasks.get(taskId)?.instruction.match(/job (M\d+)/)?.[1] } : {}),
    requestIndex: 0,
    runIndex: 0,
  });
  const markResolved = (mark: Stopped) => () => {
    mark.requestIndex = seen.length;
    mark.runIndex = runner.runs.length;
    stops.push(mark);
  };

  const actions: Array<{ name: string; weight: number; enabled: () => boolean; run: () => Promise<void> | void }> = [
    {
      name: 'release',
      weight: 5,
      enabled: () => server.holding.length > 0,
      run: () => server.release(choose(server.holding)),
    },
    {
      name: 'finish',
      weight: 3,
      enabled: () => runner.running().length > 0,
      run: () => choose(runner.running()).finish(),
    },
    {
      name: 'send',
      weight: 3,
      enabled: () => true,
      run: () => {
        const token = newToken();
        const text = pick() < 0.45 ? `${token} please start a task` : `${token} hello`;
        const snapshot = world.h.agent.views.snapshot();
        const conversations = snapshot.sessions.filter((s) => !s.taskId);
        const target = conversations.length && pick() < 0.5 ? choose(conversations).id : undefined;
        // A message into a conversation whose task waits for an answer is that answer (messageRouter.ts):
        // it moves the conversation's tasks as a reply does.
        if (target) for (const lane of snapshot.sessions.filter((s) => s.parentId === target)) moved(lane.id);
        send(text, token, target ? { sessionId: target } : {});
      },
    },
    {
      name: 'reply',
      weight: 3,
      enabled: () => liveTasks().length > 0,
      run: () => {
        const token = newToken().replace('M', 'R');
        const task = choose(liveTasks());
        moved(task.id);
        send(`${token} reply`, token, { replyToTaskId: task.id });
      },
    },
    {
      name: 'cancel',
      weight: 1,
      enabled: () => liveTasks().length > 0,
      run: () => {
        const task = choose(liveTasks());
        const mark = stopMark(task.sessionId, task.id);
        track(`cancel ${task.id}`, world.h.agent.cancelTask(task.id), undefined, markResolved(mark));
      },
    },
    {
      name: 'stop',
      weight: 1,
      enabled: () => world.h.agent.views.snapshot().sessions.some((s) => s.status === 'working'),
      run: () => {
        const session = choose(world.h.agent.views.snapshot().sessions.filter((s) => s.status === 'working'));
        const task = liveTasks().find((t) => t.sessionId === session.id);
        // Stop pauses a task (Continue resumes it): only a conversation's Stop ends its work.
        const mark = stopMark(session.id);
        track(`stop ${session.id}`, world.h.agent.stop(session.id), undefined, task ? undefined : markResolved(mark));
      },
    },
    {
      name: 'stop after step',
      weight: 2,
      enabled: () => liveTasks().some((t) => !t.paused),
      run: () => {
        const task = choose(liveTasks().filter((t) => !t.paused));
        const mine = world;
        // Refused while the task waits for the person (nothing to stop): that is an answer too.
        track(
          `stop after step ${task.id}`,
          world.h.agent.stopTaskAfterStep(task.id).then(() => {
            if (mine === alive)
              stepStops.push({
                taskId: task.id,
                token: tasks.get(task.id)?.instruction.match(/job (M\d+)/)?.[1],
                requestIndex: seen.length,
                moved: false,
              });
          }),
        );
      },
    },
    {
      name: 'decide',
      weight: 3,
      enabled: () => true,
      run: async () => {
        const pending = await world.service.pending();
        if (!pending.length) return;
        const approval = choose(pending);
        moved(approval.taskId);
        if (pick() < 0.7) {
          track(`approve ${approval.id}`, world.service.approve(approval.id), () => runner.running().some((r) => r.command === approval.command));
        } else {
          track(`reject ${approval.id}`, world.service.reject(approval.id, 'not now'));
        }
      },
    },
    {
      name: 'continue',
      weight: 2,
      enabled: () => liveTasks().some((t) => t.paused),
      run: () => {
        const task = choose(liveTasks().filter((t) => t.paused));
        moved(task.id);
        if (pick() < 0.6) track(`continue ${task.id}`, world.h.agent.continueTask(task.id));
        else {
          const mark = stopMark(task.sessionId, task.id);
          track(`cancel ${task.id}`, world.h.agent.cancelTask(task.id), undefined, markResolved(mark));
        }
      },
    },
    {
      name: 'advance',
      weight: 1,
      enabled: () => true,
      run: () => clock.advance(61_000),
    },
    {
      name: 'crash',
      weight: 0.6,
      enabled: () => true,
      run: async () => {
        // What a killed process leaves: the files as they are now. The old agent is let go (its
        // commands die with it) and a new one opens over the copy.
        const copy = crashCopy(world.h.dir);
        dirs.push(copy);
        const old = world;
        alive = undefined as unknown as World;
        for (const run of runner.running()) if (run.world === old.n) run.kill();
        await old.h.shutdown().catch(() => undefined);
        // The tasks that outlive the crash are the copy's: what the old agent did after the copy was
        // taken (it ran on until its shutdown) never happened for the new one. openWorld records them anew.
        tasks.clear();
        world = await openWorld(old.n + 1, wire, server, runner, clock, copy, tasks);
        alive = world;
      },
    },
  ];

  try {
    await settle();
    for (let step = 0; step < STEPS; step++) {
      const enabled = actions.filter((a) => a.enabled());
      const total = enabled.reduce((n, a) => n + a.weight, 0);
      let x = pick() * total;
      const action = enabled.find((a) => (x -= a.weight) < 0) ?? enabled[enabled.length - 1]!;
      log.push(action.name);
      await action.run();
      await settle();
    }
    // Drain: the model answers at once from now on; commands finish; approvals are decided;
    // paused tasks are cancelled; waits fire.
    gating = false;
    let quiet = 0;
    for (let round = 0; round < 60 && quiet < 2; round++) {
      const before = signature();
      for (const gate of server.holding) server.release(gate);
      for (const run of runner.running()) run.finish();
      for (const approval of await world.service.pending())
        track(`approve ${approval.id}`, world.service.approve(approval.id), () => runner.running().some((r) => r.command === approval.command));
      for (const task of liveTasks().filter((t) => t.paused)) {
        const mark = stopMark(task.sessionId, task.id);
        track(`cancel ${task.id}`, world.h.agent.cancelTask(task.id), undefined, markResolved(mark));
      }
      await settle();
      if (signature() === before) {
        await clock.advance(61_000);
        await settle();
        quiet = signature() === before ? quiet + 1 : 0;
      } else {
        quiet = 0;
      }
    }
    await checkInvariants();
  } finally {
    server.respond(undefined);
    await world.h.shutdown().catch(() => undefined);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
  return violations;

  async function checkInvariants(): Promise<void> {
    const agent = world.h.agent;
    const snapshot = agent.views.snapshot();
    const streams = new Map<string, Awaited<ReturnType<typeof agent.views.readTaskEvents>>>();
    for (const s of snapshot.sessions) streams.set(s.id, await agent.views.readTaskEvents(s.id, { limit: 100_000 }));
    const lines = [...streams.values()].flat().filter((e) => e.kind === 'message');
    const answering = seen
      .filter((s) => requestKind(s.request) === 'conversation' || requestKind(s.request) === 'task')
      .map((s) =>
        flatten(s.request)
          .map((m) => `${m.text} ${m.results.map(([, c]) => c).join(' ')}`)
          .join('\n'),
      );

    // Every acknowledged message is in the transcript and reached a model request (unless the
    // person stopped its session or task afterwards).
    for (const m of sent.filter((x) => x.acked)) {
      if (!lines.some((e) => e.data.role === 'user' && new RegExp(`\\b${m.token}\\b`).test(String(e.data.text))))
        violations.push(`acknowledged message ${m.token} is not in any transcript`);
      const stoppedAfter = stops.some((s) => s.sessionId === m.sessionId || (m.taskId && s.taskId === m.taskId));
      if (!stoppedAfter && !answering.some((body) => new RegExp(`\\b${m.token}\\b`).test(body)))
        violations.push(`acknowledged message ${m.token} never reached a model request`);
    }
    // A cancelled task makes no model call and runs no action after the cancel resolves.
    for (const s of stops.filter((x) => x.token)) {
      const later = seen
        .slice(s.requestIndex)
        .filter((x) => requestKind(x.request) === 'task' && JSON.stringify(x.request.body).includes(`job ${s.token} plan:`));
      if (later.length) violations.push(`task ${s.taskId} (${s.token}) made ${later.length} model call(s) after its cancel resolved`);
      const runs = runner.runs.slice(s.runIndex).filter((r) => r.command.includes(` ${s.token}.`));
      if (runs.length) violations.push(`task ${s.taskId} (${s.token}) ran ${runs.map((r) => r.command).join(', ')} after its cancel resolved`);
    }
    // Stop after a step: the step in flight may still make its one call, then none until something moves the task.
    for (const s of stepStops.filter((x) => !x.moved && x.token)) {
      const later = seen
        .slice(s.requestIndex)
        .filter((x) => requestKind(x.request) === 'task' && JSON.stringify(x.request.body).includes(`job ${s.token} plan:`));
      if (later.length > 1) violations.push(`task ${s.taskId} (${s.token}) made ${later.length} model calls after its Stop resolved`);
    }
    // No session stays "working" with nothing running; every task ends or waits with a live trigger.
    for (const s of snapshot.sessions) {
      const live = world.h.triggers.pending(s.id).length > 0;
      if (s.status === 'working' && !live) violations.push(`session ${s.id} shows working with nothing running`);
    }
    for (const t of snapshot.tasks.filter((x) => x.status === 'running')) {
      if (!world.h.triggers.pending(t.sessionId).length) violations.push(`task ${t.id} is running with no live trigger`);
    }
    // No duplicate reply or task for one message.
    for (const [sessionId, events] of streams) {
      const answered = events
        .filter((e) => e.kind === 'message' && e.data.role === 'assistant')
        .flatMap(
          (e) =>
            String(e.data.text)
              .match(/^answer to (.*)$/)?.[1]
              ?.split(' ') ?? [],
        );
      for (const token of new Set(answered)) {
        if (token !== 'nothing' && answered.filter((x) => x === token).length > 1)
          violations.push(`message ${token} was answered ${answered.filter((x) => x === token).length} times in ${sessionId}`);
      }
    }
    const byToken = new Map<string, string[]>();
    for (const t of tasks.values()) {
      const token = t.instruction.match(/^job (M\d+) /)?.[1];
      if (token) byToken.set(token, [...(byToken.get(token) ?? []), t.id]);
    }
    for (const [token, ids] of byToken) if (ids.length > 1) violations.push(`message ${token} started ${ids.length} tasks`);
    if (process.env.TASKLANE_DEBUG) {
      for (const [id, events] of streams) {
        console.log(`--- ${id}\n${events.map((e) => `${e.seq} ${e.kind} ${JSON.stringify(e.data).slice(0, 160)}`).join('\n')}`);
      }
      console.log(seen.map((x) => `${x.world} ${requestKind(x.request)} ${JSON.stringify(x.request.body.messages).slice(-300)}`).join('\n'));
      console.log(world.h.logger.lines.join('\n'));
    }
  }
}

describe('engine: interleaving of person actions, slow streaming turns, commands and crashes (seeded)', function () {
  this.timeout(600_000);
  let server: ModelServer;
  before(async () => {
    server = await startModelServer({ chunkChars: 6 });
  });
  after(async () => server.close());

  it(`holds the invariants on ${process.env.TASKLANE_SEED ? 'the replayed schedule' : `${SCHEDULES} random schedules`}`, async () => {
    const replay = process.env.TASKLANE_SEED;
    const base = replay ? Number(replay) : Math.floor(Math.random() * 1e9);
    const count = replay ? 1 : SCHEDULES;
    console.log(`    interleaving: seeds ${base}..${base + count - 1} (replay one with TASKLANE_SEED=<seed>)`);
    const failures: string[] = [];
    const caught = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      const seed = base + i;
      const log: string[] = [];
      const violations = await runSchedule(seed, server, log).catch((error: unknown) => {
        // A schedule that throws (rather than breaking an invariant) still names its seed.
        throw new Error(`seed ${seed} [${log.join(' ')}] threw: ${(error as Error).stack ?? String(error)}`, { cause: error });
      });
      if (violations.length) {
        failures.push(`seed ${seed} [${log.join(' ')}]:\n      ${violations.join('\n      ')}`);
        for (const v of violations) {
          const kind = v
            .replace(/\b(t-|s-)[\w.-]+/g, '<id>')
            .replace(/\b[MR]\d+(\.\d+)?\b/g, '<n>')
            .replace(/\d+ /g, 'N ');
          caught.set(kind, (caught.get(kind) ?? 0) + 1);
        }
        if (failures.length >= 5 && !process.env.TASKLANE_ALL) break;
      }
    }
    if (failures.length) {
      const summary = [...caught].map(([k, n]) => `${n}× ${k}`).join('\n    ');
      assert.fail(`${failures.length} schedule(s) broke an invariant:\n    ${summary}\n  first ones:\n  ${failures.slice(0, 5).join('\n  ')}`);
    }
  });
});
