import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { followingWallClock, startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('scripted model server', () => {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer();
  });
  afterEach(() => server.reset());
  after(() => server.close());

  it('answers with a deterministic echo when the script is empty', async () => {
    const res = await post(
      `${server.openaiBaseUrl}/chat/completions`,
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'x' },
          { role: 'user', content: 'ping' },
        ],
      },
      { authorization: 'Bearer k' },
    );
    assert.equal(res.status, 200);
    const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
    assert.equal(body.choices[0]!.message.content, 'echo: ping');
  });

  it('answers 401 in the provider format when no key is sent', async () => {
    const openai = await post(`${server.openaiBaseUrl}/chat/completions`, { model: 'm', messages: [] });
    assert.equal(openai.status, 401);
    assert.ok(((await openai.json()) as { error: { message: string } }).error.message.includes('API key'));
    const anthropic = await post(`${server.anthropicBaseUrl}/v1/messages`, { model: 'm', messages: [] });
    assert.equal(anthropic.status, 401);
    assert.deepEqual(((await anthropic.json()) as { type: string; error: { type: string } }).error.type, 'authentication_error');
  });

  it('takes steps over POST /__script, records requests for GET /__requests and clears on POST /__reset', async () => {
    const scripted = await post(`${server.url}/__script`, [{ text: 'from control' }, { error: { status: 429, retryAfterSeconds: 7 } }]);
    assert.deepEqual(await scripted.json(), { pending: 2 });
    assert.equal(server.pending, 2);

    const first = await post(
      `${server.anthropicBaseUrl}/v1/messages`,
      { model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
      { 'x-api-key': 'k' },
    );
    const message = (await first.json()) as { content: Array<{ type: string; text: string }>; model: string };
    assert.deepEqual(message.content, [{ type: 'text', text: 'from control' }]);
    assert.equal(message.model, 'claude-x');

    const second = await post(`${server.anthropicBaseUrl}/v1/messages`, { model: 'claude-x', messages: [] }, { 'x-api-key': 'k' });
    assert.equal(second.status, 429);
    assert.equal(second.headers.get('retry-after'), '7');

    const recorded = (await (await fetch(`${server.url}/__requests`)).json()) as Array<{ format: string; status: number; body: { model: string } }>;
    assert.deepEqual(
      recorded.map((r) => [r.format, r.status, r.body.model]),
      [
        ['anthropic', 200, 'claude-x'],
        ['anthropic', 429, 'claude-x'],
      ],
    );

    await post(`${server.url}/__reset`, {});
    assert.equal(server.requests.length, 0);
    assert.equal(server.pending, 0);
  });

  it('answers 400 with the reason when a step match fails', async () => {
    server.script([{ match: { contains: 'needle' }, text: 'never' }]);
    const res = await post(
      `${server.openaiBaseUrl}/chat/completions`,
      { model: 'm', messages: [{ role: 'user', content: 'hay' }] },
      { authorization: 'Bearer k' },
    );
    assert.equal(res.status, 400);
    assert.match(server.requests[0]!.matchFailure ?? '', /needle/);
  });

  it('enforces requireKey when configured', async () => {
    const strict = await startModelServer({ requireKey: 'secret' });
    try {
      const wrong = await post(`${strict.openaiBaseUrl}/chat/completions`, { model: 'm', messages: [] }, { authorization: 'Bearer nope' });
      assert.equal(wrong.status, 401);
      const right = await post(`${strict.openaiBaseUrl}/chat/completions`, { model: 'm', messages: [] }, { authorization: 'Bearer secret' });
      assert.equal(right.status, 200);
    } finally {
      await strict.close();
    }
  });
});

describe('scripted model server: routing', () => {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer({ requireRoute: true });
  });
  afterEach(() => server.reset());
  after(() => server.close());

  const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object' } } });
  /** One OpenAI request offering `tools`, whose last message says `text`; resolves with what it was answered. */
  const ask = async (text: string, tools: string[]) => {
    const res = await post(
      `${server.openaiBaseUrl}/chat/completions`,
      { model: 'm', tools: tools.map(tool), messages: [{ role: 'user', content: text }] },
      { authorization: 'Bearer k' },
    );
    const body = (await res.json()) as { choices: Array<{ message: { content: string | null; tool_calls?: Array<{ function: { name: string } }> } }> };
    const message = body.choices[0]!.message;
    return message.tool_calls?.map((c) => c.function.name).join(',') ?? message.content;
  };

  it('gives a routed step to the request that carries its marker, whatever the order of arrival', async () => {
    server.script([
      { route: '[job-a]', text: 'answer for a' },
      { route: '[job-b]', text: 'answer for b' },
    ]);
    assert.equal(await ask('do [job-b] now', ['send_message']), 'answer for b');
    assert.equal(await ask('a background call that names no job', ['send_message']), 'echo: a background call that names no job');
    assert.equal(await ask('and [job-a]', ['send_message']), 'answer for a');
    assert.equal(server.pending, 0);
  });

  it('never gives a step to a request that cannot use it: memory and router calls that quote the marker are passed over', async () => {
    server.script([
      { route: '[job-c]', toolCalls: [{ name: 'task_start', arguments: { instruction: 'x' } }] },
      { route: '[job-c]', text: 'plain reply' },
    ]);
    // A distillation request quotes every event, the marker too, but offers only save_memory.
    assert.equal(await ask('events: user said [job-c]', ['save_memory']), 'echo: events: user said [job-c]');
    assert.equal(await ask('route [job-c]?', ['route_message']), 'echo: route [job-c]?');
    assert.equal(server.pending, 2, 'both steps still wait for their request');
    assert.equal(await ask('[job-c]', ['send_message', 'task_start']), 'task_start');
    assert.equal(await ask('[job-c]', ['send_message', 'task_start']), 'plain reply');
  });

  it('anyTool lets a routed step call a tool the request does not offer (to test what the engine answers)', async () => {
    server.script([{ route: '[job-d]', anyTool: true, toolCalls: [{ name: 'not_offered', arguments: {} }] }]);
    assert.equal(await ask('[job-d]', ['send_message']), 'not_offered');
  });

  it('refuses an unrouted step when routes are required, over HTTP and in process', async () => {
    const res = await post(`${server.url}/__script`, [{ route: '[ok]', text: 'a' }, { text: 'no route' }]);
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: string }).error, /Step 1 has no route/);
    assert.equal(server.pending, 0, 'nothing of a refused script is queued');
    assert.throws(() => server.script([{ text: 'no route' }]), /has no route/);
  });

  it('lists only the requests of one route with GET /__requests?route=', async () => {
    await ask('first [r-1]', ['send_message']);
    await ask('second [r-2]', ['send_message']);
    const res = await fetch(`${server.url}/__requests?route=${encodeURIComponent('[r-2]')}`);
    const listed = (await res.json()) as Array<{ body: { messages: Array<{ content: string }> } }>;
    assert.deepEqual(
      listed.map((r) => r.body.messages[0]!.content),
      ['second [r-2]'],
    );
  });
});

describe('modelServerMain (standalone process)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGTERM');
  });

  it('prints its url as one JSON line and serves the control API', async () => {
    const main = path.join(__dirname, '../../fixtures/modelServerMain.ts');
    child = spawn(process.execPath, ['--import', 'tsx', main, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      child!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child!.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      child!.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    const info = JSON.parse(line) as { url: string; openaiBaseUrl: string };
    assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(info.openaiBaseUrl, `${info.url}/v1`);
    await post(`${info.url}/__script`, [{ text: 'scripted from outside' }]);
    const res = await post(`${info.openaiBaseUrl}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'q' }] }, { authorization: 'Bearer k' });
    assert.equal(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content, 'scripted from outside');
  });
});

describe('scripted model server: the wall clock its stamps use', () => {
  // A fake system clock stepped by 175 ms, as a virtual machine's clock sync steps it.
  function clocks() {
    const now = { wall: 1_000_000, mono: 50 };
    return { now, wall: () => Math.floor(now.wall), mono: () => now.mono, advance: (ms: number) => ((now.wall += ms), (now.mono += ms)) };
  }

  it('keeps sub-ms steps between reads and follows a step of the system clock at once', () => {
    const c = clocks();
    const read = followingWallClock(c.wall, c.mono);
    const first = read();
    c.advance(7.25);
    assert.equal(read() - first, 7.25, 'the monotonic clock carries the time between reads, with its precision');
    // The system clock is stepped: a stamp taken after it agrees with Date.now() of any process.
    c.now.wall += 175;
    c.advance(3);
    // Carried on from the start alone (as timeOrigin + now() is), the stamp would be 175 ms behind.
    assert.ok(Math.abs(read() - c.wall()) <= 1, 'the stepped wall clock is followed');
  });
});
