import * as assert from 'node:assert/strict';
import type { SidebarRuntime } from '../../../src/host/sidebarBackend';
import { answerRequest, sidebarHandlers } from '../../../src/host/sidebarHandlers';
import type { HostMessage } from '../../../src/shared/protocol';
import { webviewMessageSchema } from '../../../src/shared/protocol';
import { isSidebarMethod, sidebarRequestSchemas } from '../../../src/shared/sidebarSchemas';
import { RequestClient, RequestError } from '../../../src/webview/requests';

/** What the agent and the approvals were asked, in order. */
type Calls = string[];

/** A runtime whose agent and approvals record what they are asked (only what these tests call). */
function fakeRuntime(calls: Calls): SidebarRuntime {
  const agent = {
    sendMessage: async (text: string, options: { sessionId?: string; requestId?: string }) => {
      calls.push(`send ${text} ${options.requestId}`);
      return { sessionId: options.sessionId ?? 's-new' };
    },
    continueTask: async (taskId: string) => void calls.push(`continue ${taskId}`),
    cancelTask: async (taskId: string) => {
      calls.push(`cancel ${taskId}`);
      throw new Error(`Task ${taskId} has ended already; nothing to cancel.`);
    },
    stop: async (sessionId: string) => void calls.push(`stop ${sessionId}`),
  };
  const approvals = {
    list: async () => [],
    handle: async (message: { type: string; id: string }) => {
      calls.push(`${message.type} ${message.id}`);
      if (message.type === 'approval.approve' && message.id === 'gone') throw new Error('There is no proposed change gone any more.');
    },
  };
  const services = { agent, approvals } as unknown as Awaited<SidebarRuntime['ready']>;
  return { ready: Promise.resolve(services), current: services, problem: undefined };
}

/**
 * The sidebar's request API as one contract: every request has a schema and a handler, the
 * envelope is checked, and the webview's client gets each reply, typed, at the request that asked,
 * whatever order the replies come in; an error goes back to the request that caused it.
 */
describe('sidebar API: one request map, one envelope, one handler table', () => {
  it('every request of the map has a handler, and the table has no other', () => {
    const handlers = sidebarHandlers(fakeRuntime([]), {});
    assert.deepEqual(Object.keys(handlers).sort(), Object.keys(sidebarRequestSchemas).sort());
    assert.equal(isSidebarMethod('send'), true);
    assert.equal(isSidebarMethod('toString'), false, 'an inherited name is not a method');
    assert.equal(isSidebarMethod('sendResult'), false);
  });

  it('checks the envelope, then the params against the method', async () => {
    assert.ok(webviewMessageSchema.safeParse({ type: 'request', id: 'r1', method: 'task.continue', params: { taskId: 't-1' } }).success);
    assert.ok(!webviewMessageSchema.safeParse({ type: 'send', requestId: 'r1', text: 'hi' }).success, 'the old bare messages are gone');
    const handlers = sidebarHandlers(fakeRuntime([]), {});
    await assert.rejects(answerRequest(handlers, 'r2', 'task.continue', { taskId: '' }));
    await assert.rejects(answerRequest(handlers, 'r3', 'send', { requestId: 'x', text: '' }));
  });

  it('a round trip: replies out of order reach their own requests, typed; a refusal rejects the request that caused it', async () => {
    const calls: Calls = [];
    const handlers = sidebarHandlers(fakeRuntime(calls), {});
    const inbox: Array<Promise<HostMessage>> = [];
    // The host side of the provider, in small: answer each envelope, or reply with its error.
    const client = new RequestClient((message) => {
      if (message.type !== 'request' || !isSidebarMethod(message.method)) return;
      const { id, method } = message;
      inbox.push(answerRequest(handlers, id, method, message.params).catch((error: Error) => ({ type: 'reply', id, method, ok: false, error: error.message })));
    });
    const sent = client.request('send', { requestId: 'draft-1', text: 'add greetAll', sessionId: 's-1' });
    const cancelled = client.request('task.cancel', { taskId: 't-9' });
    const approved = client.request('approval.approve', { id: 'gone' });
    const continued = client.request('task.continue', { taskId: 't-1' });
    assert.equal(client.inFlight, 4);
    const replies = await Promise.all(inbox);
    // Delivered newest first: each still settles the request it answers.
    for (const reply of replies.reverse()) assert.equal(reply.type === 'reply' && client.onReply(reply), true);
    assert.deepEqual(await sent, { sessionId: 's-1' });
    assert.equal(await continued, null);
    await assert.rejects(cancelled, (e: unknown) => e instanceof RequestError && /has ended already/.test(e.message));
    await assert.rejects(approved, (e: unknown) => e instanceof RequestError && e.message === 'There is no proposed change gone any more.');
    assert.equal(client.inFlight, 0);
    assert.deepEqual(calls, ['send add greetAll draft-1', 'cancel t-9', 'approval.approve gone', 'continue t-1']);
    // A reply no request of this page waits for (the page was reloaded since) settles nothing.
    assert.equal(client.onReply({ type: 'reply', id: 'older-page-1', method: 'send', ok: true, result: { sessionId: 's-1' } }), false);
  });
});
