import * as assert from 'node:assert/strict';
import { DEMO_COMMAND, DEMO_FILE, DEMO_TASK_MARKER, demoStep } from '../fixtures/demoModel';
import type { RecordedRequest, ScriptStep } from '../fixtures/modelServer';

// The demo responder's choices for each kind of request the engine sends (the host tier plays
// the whole scenario through the real extension: test/host/demo.test.ts).
type Message = { role: string; content?: unknown; tool_calls?: Array<{ function: { name: string; arguments: string } }> };
const tool = (name: string) => ({ type: 'function', function: { name } });
function request(messages: Message[], tools: string[]): RecordedRequest {
  return { format: 'openai', method: 'POST', path: '/v1/chat/completions', headers: {}, stream: true, body: { messages, tools: tools.map(tool) } };
}
const called = (name: string, args: unknown = {}): Message => ({ role: 'assistant', tool_calls: [{ function: { name, arguments: JSON.stringify(args) } }] });
const result = (content: string): Message => ({ role: 'tool', content });
const names = (step: ScriptStep) => (step.toolCalls ?? []).map((c) => c.name);
const TASK_TOOLS = ['read_file', 'list_files', 'replace_in_file', 'run_command', 'task_end'];

describe('demo model: the scenario npm start plays without a key', () => {
  it('a message in the conversation starts the labelled demo task; its result ends the turn', () => {
    const first = demoStep(
      request(
        [
          { role: 'system', content: 'You are Tasklane' },
          { role: 'user', content: 'hello' },
        ],
        ['task_start', 'send_message'],
      ),
    );
    assert.match(first.text ?? '', /^Demo model — no key configured; choose a model to use a real one\./);
    assert.deepEqual(names(first), ['task_start']);
    assert.ok(JSON.stringify(first.toolCalls?.[0]?.arguments).includes(DEMO_TASK_MARKER));
    const after = demoStep(request([{ role: 'user', content: 'hello' }, called('task_start'), result('started')], ['task_start']));
    assert.deepEqual(names(after), []);
  });

  it('the task reads, proposes, runs the allowlisted command, then ends; a rejected edit ends it at once', () => {
    const base: Message[] = [
      { role: 'system', content: 'task' },
      { role: 'user', content: `${DEMO_TASK_MARKER} Add greetAll` },
    ];
    const step = (extra: Message[]) => demoStep(request([...base, ...extra], TASK_TOOLS));
    assert.deepEqual(step([]).toolCalls?.[0], { name: 'read_file', arguments: { path: DEMO_FILE } });
    const read = [called('read_file'), result('function greet(name) {}\nmodule.exports = { greet };')];
    assert.deepEqual(names(step(read)), ['replace_in_file']);
    const proposed = [...read, called('replace_in_file')];
    assert.deepEqual(step([...proposed, result('approved (The change was approved and applied)')]).toolCalls?.[0], {
      name: 'run_command',
      arguments: { command: DEMO_COMMAND },
    });
    const rejected = step([...proposed, result('rejected (not now)')]);
    assert.deepEqual(names(rejected), ['task_end']);
    assert.match(JSON.stringify(rejected.toolCalls), /rejected the edit/);
    const ran = step([...proposed, result('approved'), called('run_command'), result('`npm run build` exited with code 0\nbuild succeeded')]);
    assert.deepEqual(names(ran), ['task_end']);
    assert.equal((ran.toolCalls?.[0]?.arguments as { status: string }).status, 'completed');
    // A second demo run on an already edited file skips the edit rather than failing on it.
    assert.deepEqual(names(step([called('read_file'), result('function greetAll(names) {}')])), ['run_command']);
  });

  it('a chore run lists the workspace and reports; the router always says new', () => {
    const chore: Message[] = [{ role: 'user', content: 'Check things.\n\n[chore tidy] This run is unattended: do not ask the user questions.' }];
    assert.deepEqual(names(demoStep(request(chore, TASK_TOOLS))), ['list_files']);
    const done = demoStep(request([...chore, called('list_files'), result('./:\nREADME.md\nsrc/')], TASK_TOOLS));
    assert.deepEqual(names(done), ['task_end']);
    assert.match(JSON.stringify(done.toolCalls), /Chore run done/);
    assert.deepEqual(demoStep(request([{ role: 'user', content: 'hi' }], ['route_message'])).toolCalls?.[0]?.arguments, {
      decision: 'new',
      reason: 'demo: each message starts its own work',
    });
  });
});
