/**
 * What an engine exposes, as plain data: which services it built and which tools each kind of
 * turn is offered. The VS Code host reports it in `tasklane.getState` and a host test builds the
 * command line's engine beside it and compares the two (one graph, two sets of adapters), so a
 * wiring that drifts apart fails a test instead of a user.
 */
import { ACTION_SETS } from './actions/actionSets';
import type { Engine } from './createEngine';

export interface EngineSurface {
  /** The optional services present (change sets, commands, chores, the chore scheduler, MCP), sorted. */
  services: string[];
  /** What a conversation turn is offered. */
  conversationTools: string[];
  /** What a chore task granted files and commands is offered (the read and task sets always come with it). */
  choreTaskTools: string[];
}

export function describeEngine(engine: Engine): EngineSurface {
  const services = [
    engine.changeSets ? 'changeSets' : '',
    engine.commands ? 'commands' : '',
    engine.chores ? 'chores' : '',
    engine.chores?.scheduler ? 'choreScheduler' : '',
    // Built by createEngine in both hosts (core/engineMcp.ts), never by a host itself.
    engine.mcp ? 'mcp' : '',
  ].filter(Boolean);
  const views = engine.agent.views;
  return {
    services: services.sort(),
    conversationTools: views.toolNames([ACTION_SETS.conversation]),
    choreTaskTools: views.toolNames([ACTION_SETS.task, ACTION_SETS.read, ACTION_SETS.files, ACTION_SETS.commands]),
  };
}
