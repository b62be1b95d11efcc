/**
 * Review 2026-12b findings 5 and 10 on the live bubble: a tool-call preview whose raw JSON spells
 * a secret with escapes (`\/`, `\u002d`) shows no secret, and redaction while a reply streams costs
 * a bounded window per publish (linear in the reply), not the whole reply again.
 */
import * as assert from 'node:assert/strict';
import { TurnStream } from '../../../src/core/engine/streaming';
import type { StreamDelta } from '../../../src/core/engine/types';
import { Redactor, redactCredentials } from '../../../src/core/security/redact';

function stream(redact: (text: string) => string = redactCredentials): { deltas: StreamDelta[]; turn: TurnStream } {
  const deltas: StreamDelta[] = [];
  let now = 0;
  const turn = new TurnStream((d) => deltas.push(d), { intervalMs: 0, now: () => (now += 1), redact });
  return { deltas, turn };
}

const previews = (deltas: StreamDelta[]) => deltas.map((d) => (d.kind === 'tool' ? d.preview : '')).join('\n');

describe('streaming: redaction of previews and of long replies', () => {
  it('a write_file preview with a JSON-escaped Slack webhook shows no secret', () => {
    const { deltas, turn } = stream();
    const args = JSON.stringify({ path: 'a.sh', content: 'curl https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx' }).replace(
      /\//g,
      '\\/',
    );
    for (let i = 10; i <= args.length; i += 10) turn.onDelta({ kind: 'tool', callId: 'c1', name: 'write_file', argumentsText: args.slice(0, i) });
    turn.onDelta({ kind: 'tool', callId: 'c1', name: 'write_file', argumentsText: args });
    turn.close();
    assert.ok(!previews(deltas).includes('abcdefghijklmnopqrstuv'), previews(deltas));
    assert.ok(!previews(deltas).includes('T0123ABCD\\/B0123ABCD'), previews(deltas));
  });

  it('a write_file preview with a \\u-escaped known secret shows no secret', () => {
    const redactor = new Redactor();
    redactor.addSecret('ZZZZZZZZZZZZZZZZZZZZ-ZZZZ');
    const { deltas, turn } = stream((t) => redactor.redact(t));
    const args = '{"path":"k.txt","content":"ZZZZZZZZZZZZZZZZZZZZ\\u002dZZZZ"}';
    turn.onDelta({ kind: 'tool', callId: 'c1', name: 'write_file', argumentsText: args });
    turn.close();
    assert.ok(!previews(deltas).includes('ZZZZZZZZZZZZZZZZZZZZ'), previews(deltas));
  });

  it('redaction work per publish is bounded: a 400 KB reply costs a small multiple of its size', () => {
    let redacted = 0;
    const { deltas, turn } = stream((t) => {
      redacted += t.length;
      return redactCredentials(t);
    });
    const chunk = `${'lorem ipsum dolor sit amet '.repeat(15)}\n`; // ~400 characters, as the review's probe
    let reply = '';
    while (reply.length < 400_000) {
      reply += chunk;
      turn.onDelta({ kind: 'text', text: chunk });
    }
    // A key cut across the window's edge is still caught.
    const key = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    turn.onDelta({ kind: 'text', text: ` ${key.slice(0, 12)}` });
    turn.onDelta({ kind: 'text', text: `${key.slice(12)} done.` });
    turn.close();
    const shown = deltas.map((d) => (d.kind === 'text' ? d.text : '')).join('');
    assert.ok(!shown.includes(key), 'the key is not shown');
    assert.ok(shown.startsWith(reply.slice(0, 1000)), 'the reply is shown');
    assert.ok(redacted < 20 * reply.length, `redacted ${redacted} characters for a reply of ${reply.length}`);
  });

  it('a publish late in a 400 KB reply costs about what one early in it did (CPU time, same run)', () => {
    // The redacted window is bounded (above); finding where the settled text ends must be too.
    // It once scanned the whole reply at every publish: the last publishes cost 6× the early ones.
    const { turn } = stream();
    const chunk = `${'lorem ipsum dolor sit amet '.repeat(15)}\n`;
    const cpuOf = (publishes: number) => {
      const started = process.cpuUsage();
      for (let i = 0; i < publishes; i++) turn.onDelta({ kind: 'text', text: chunk });
      const used = process.cpuUsage(started);
      return used.user + used.system;
    };
    cpuOf(100); // warm-up: the code is optimized before anything is measured
    const early = cpuOf(100); // around 40-80 KB
    cpuOf(700);
    const late = cpuOf(100); // around 360-400 KB
    turn.close();
    assert.ok(late < 3 * early, `100 publishes took ${(late / 1000).toFixed(1)} ms of CPU at 360 KB, ${(early / 1000).toFixed(1)} ms at 40 KB`);
  });
});
