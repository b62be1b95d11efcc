import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { parseMcpServers } from '../../../src/core/mcp/mcpConfig';
import { McpConnection } from '../../../src/core/mcp/mcpConnection';
import { elicitFields, readTyped } from '../../../src/core/mcp/mcpElicitation';
import type { ElicitationAnswer, ElicitationPort, ElicitationRequest } from '../../../src/core/mcp/mcpElicitation';
import { systemClock } from '../../../src/core/ports';
import { MemoryLogger } from '../../fakes/memoryLogger';

// The reference server from the npm registry: its trigger-elicitation-request tool exists only for
// a client that declares the elicitation capability, and asks for a dozen kinds of field.
const everything = path.resolve(__dirname, '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** A person at the form: records what they were shown, answers as told. */
class ScriptedPerson implements ElicitationPort {
  readonly shown: ElicitationRequest[] = [];
  constructor(private readonly answer: (request: ElicitationRequest) => ElicitationAnswer | Promise<ElicitationAnswer>) {}
  async elicit(request: ElicitationRequest): Promise<ElicitationAnswer> {
    this.shown.push(request);
    return this.answer(request);
  }
}

describe('mcp: elicitation (a server asks the person for input)', function () {
  this.timeout(60_000);
  const connections: McpConnection[] = [];
  after(async () => {
    await Promise.all(connections.map((c) => c.stop()));
  });

  function connect(elicit: ElicitationPort | undefined, callTimeoutMs?: number): { connection: McpConnection; logger: MemoryLogger } {
    const { servers } = parseMcpServers({ servers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }, 'user');
    const logger = new MemoryLogger();
    const connection = new McpConnection({
      definition: servers[0]!,
      cwd: process.cwd(),
      clock: systemClock,
      logger,
      ...(elicit ? { elicit } : {}),
      ...(callTimeoutMs ? { callTimeoutMs } : {}),
    });
    connections.push(connection);
    return { connection, logger };
  }

  it('shows the server name, its message and every field; what the person accepts reaches the server only', async () => {
    const person = new ScriptedPerson(() => ({ action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } }));
    const { connection, logger } = connect(person);
    assert.ok(
      (await connection.tools()).some((t) => t.name === 'trigger-elicitation-request'),
      'the server saw the elicitation capability',
    );
    const result = await connection.call('trigger-elicitation-request', {});
    assert.equal(result.isError, false, result.text);
    assert.match(result.text, /User provided the requested information/);
    assert.match(result.text, /Name: Ada Lovelace/);
    assert.match(result.text, /Favorite Integer: 7/);
    // Declared applyDefaults: a field left out comes back with the server's own default.
    assert.match(result.text, /Favorite Number: 3.14/);
    const [shown] = person.shown;
    assert.equal(shown?.server, 'everything');
    assert.equal(shown?.message, 'Please provide inputs for the following fields:');
    const byKey = new Map(shown!.fields.map((f) => [f.key, f]));
    assert.equal(byKey.get('name')?.kind, 'text');
    assert.equal(byKey.get('name')?.required, true);
    const email = byKey.get('email');
    assert.equal(email?.kind === 'text' && email.format, 'email');
    const integer = byKey.get('integer');
    assert.ok(integer?.kind === 'number' && integer.integer && integer.minimum === 1 && integer.maximum === 100);
    const hero = byKey.get('titledSingleSelectEnum');
    assert.deepEqual(hero?.kind === 'choice' && hero.options[0], { value: 'hero-1', label: 'Superman' });
    const fish = byKey.get('titledMultipleSelectEnum');
    assert.ok(fish?.kind === 'choices' && fish.maxItems === 3 && fish.options.length === 3);
    const pets = byKey.get('legacyTitledEnum');
    assert.deepEqual(pets?.kind === 'choice' && pets.options[1], { value: 'pet-2', label: 'Dogs' });
    assert.equal(byKey.get('check')?.kind, 'boolean');
    // The log names the request and the outcome, never what was typed.
    assert.ok(logger.lines.some((l) => /everything asks the person for 13 value/.test(l)));
    assert.ok(!logger.lines.some((l) => l.includes('Ada')));
  });

  it('declined and cancelled reach the server as such, with no values', async () => {
    const decline = connect(new ScriptedPerson(() => ({ action: 'decline' }))).connection;
    const declined = await decline.call('trigger-elicitation-request', {});
    assert.match(declined.text, /User declined to provide the requested information/);
    const cancel = connect(new ScriptedPerson(() => ({ action: 'cancel' }))).connection;
    const cancelled = await cancel.call('trigger-elicitation-request', {});
    assert.match(cancelled.text, /User cancelled the elicitation dialog/);
    assert.doesNotMatch(cancelled.text, /"content"/);
  });

  it('headless (no one to ask) the request is refused with an error that says why', async () => {
    const { connection, logger } = connect(undefined);
    const result = await connection.call('trigger-elicitation-request', {});
    assert.equal(result.isError, true);
    assert.match(result.text, /runs without a person here \(the command line\), so it cannot ask for the input the MCP server everything requested/);
    assert.ok(logger.lines.some((l) => /everything asked for input; refused/.test(l)));
  });

  it('the call timeout does not run out while the person is filling in the form', async () => {
    const person = new ScriptedPerson(
      () => new Promise<ElicitationAnswer>((resolve) => setTimeout(() => resolve({ action: 'accept', content: { name: 'Slow Typist' } }), 2_500)),
    );
    const { connection } = connect(person, 1_000);
    // Started first, so the deadline covers only the call: a loaded machine can take longer than it to start the server.
    await connection.tools();
    const result = await connection.call('trigger-elicitation-request', {});
    assert.equal(result.isError, false, result.text);
    assert.match(result.text, /Name: Slow Typist/);
  });

  it('reads typed answers as the schema says, and refuses a schema a form cannot ask', () => {
    const [count, mail, day] = elicitFields({
      type: 'object',
      properties: {
        count: { type: 'integer', minimum: 1, maximum: 5 },
        mail: { type: 'string', format: 'email', title: 'Email' },
        day: { type: 'string', format: 'date' },
      },
      required: ['count'],
    });
    assert.deepEqual(readTyped(count!, ' 3 '), { value: 3 });
    assert.deepEqual(readTyped(count!, '2.5'), { error: 'Enter a whole number.' });
    assert.deepEqual(readTyped(count!, '9'), { error: 'Enter at most 5.' });
    assert.deepEqual(readTyped(count!, ''), { error: 'count is required.' });
    assert.deepEqual(readTyped(mail!, ''), { skip: true });
    assert.deepEqual(readTyped(mail!, 'not-mail'), { error: 'Enter an email address.' });
    assert.deepEqual(readTyped(day!, '2026-12-03'), { value: '2026-12-03' });
    assert.throws(() => elicitFields({ type: 'object', properties: { nested: { type: 'object' } } }), /nested has a type a form cannot ask for/);
    assert.throws(() => elicitFields({ type: 'array' }), /must be an object/);
  });
});
