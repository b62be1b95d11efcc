import * as assert from 'node:assert/strict';
import { choreTemplates } from '../../src/core/chores/templates';
import { compileExpression, evaluateSuccess } from '../../src/core/chores/expressions';
import { approvalMessage } from '../../src/core/engine/triggerPayloads';
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
const ending = (step: ScriptStep) => step.toolCalls?.[0]?.arguments as { status: string; summary: string; output?: unknown };
const TASK_TOOLS = ['read_file', 'list_files', 'replace_in_file', 'run_command', 'task_end'];
// What the engine tells the task: the proposal's tool result (editActions.ts) and the decision's line.
const PROPOSED = 'Proposed change set cs-1 (1 file: src/greet.js); nothing is written until the user approves it.';
const decided = (decision: 'approved' | 'rejected', note: string): Message => ({
  role: 'user',
  content: approvalMessage({ approvalId: 'cs-1', decision, note }),
});
const BUILT = '`npm run build` exited with code 0\nbuild succeeded';

describe('demo model: the scenario npm start plays without a key', () => {
  const base: Message[] = [
    { role: 'system', content: 'task' },
    { role: 'user', content: `${DEMO_TASK_MARKER} Add greetAll` },
  ];
  const step = (extra: Message[]) => demoStep(request([...base, ...extra], TASK_TOOLS));
  const read = [called('read_file'), result('function greet(name) {}\nmodule.exports = { greet };')];
  const proposed = [...read, called('replace_in_file'), result(PROPOSED)];

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

  it('the task reads, proposes, waits for the decision, runs the allowlisted command, then ends', () => {
    assert.deepEqual(step([]).toolCalls?.[0], { name: 'read_file', arguments: { path: DEMO_FILE } });
    assert.deepEqual(names(step(read)), ['replace_in_file']);
    const approved = [...proposed, decided('approved', 'The change was approved and applied: src/greet.js.')];
    assert.deepEqual(step(approved).toolCalls?.[0], { name: 'run_command', arguments: { command: DEMO_COMMAND } });
    const ran = step([...approved, called('run_command'), result(BUILT)]);
    assert.deepEqual(names(ran), ['task_end']);
    assert.equal(ending(ran).status, 'completed');
    assert.match(ending(ran).summary, /^Added greetAll to src\/greet\.js; `npm run build` passed/, 'the summary starts with what was done, not the demo label');
  });

  it('a rejected edit ends at once saying nothing changed: no build, no "Added … passed"', () => {
    const rejected = step([...proposed, decided('rejected', 'The change was rejected: not now. Nothing was written.')]);
    assert.deepEqual(names(rejected), ['task_end']);
    assert.match(ending(rejected).summary, /You rejected the edit, so nothing changed/);
    const stale = step([...proposed, decided('rejected', 'The change was not applied: src/greet.js changed on disk.')]);
    assert.match(ending(stale).summary, /was not applied: src\/greet\.js changed on disk/);
  });

  it('a message while the edit waits runs nothing: the card still decides', () => {
    const meanwhile = step([...proposed, { role: 'user', content: 'how long will this take?' }]);
    assert.deepEqual(names(meanwhile), []);
    assert.match(meanwhile.text ?? '', /still waits on its card/);
  });

  it('a second run on the already edited file builds and ends completed, never re-proposing the edit', () => {
    const again = [called('read_file'), result('function greetAll(names) {}\nmodule.exports = { greet, greetAll };')];
    assert.deepEqual(names(step(again)), ['run_command']);
    const ended = step([...again, called('run_command'), result(BUILT)]);
    assert.deepEqual(names(ended), ['task_end'], 'the second message proposed the applied edit again');
    assert.equal(ending(ended).status, 'completed');
    assert.match(ending(ended).summary, /already in src\/greet\.js, so there was nothing to change/);
  });

  it('a proposal the engine refused ends in words for people, not the error it returned', () => {
    const refused = step([...read, called('replace_in_file'), result('Error: oldText was not found in src/greet.js; read the file again')]);
    assert.deepEqual(names(refused), ['task_end']);
    assert.doesNotMatch(ending(refused).summary, /oldText/);
  });

  it('every local template chore run by the demo ends in an output its successWhen accepts', async () => {
    // The first chore a newcomer creates is a template; the demo must not fail it.
    for (const template of choreTemplates) {
      const chore: Message[] = [
        { role: 'user', content: `${template.spec.prompt}\n\n[chore ${template.spec.id}] This run is unattended: do not ask the user questions.` },
      ];
      assert.deepEqual(names(demoStep(request(chore, TASK_TOOLS))), ['list_files']);
      const done = demoStep(request([...chore, called('list_files'), result('./:\nREADME.md\nsrc/')], TASK_TOOLS));
      assert.deepEqual(names(done), ['task_end']);
      assert.match(ending(done).summary, /^Chore run done/);
      const verdict = await evaluateSuccess(compileExpression(template.spec.successWhen ?? 'true'), ending(done).output);
      assert.equal(verdict.result, 'true', `${template.key}: ${JSON.stringify(verdict)}`);
    }
  });

  it('the router always says new', () => {
    assert.deepEqual(demoStep(request([{ role: 'user', content: 'hi' }], ['route_message'])).toolCalls?.[0]?.arguments, {
      decision: 'new',
      reason: 'demo: each message starts its own work',
    });
  });
});
