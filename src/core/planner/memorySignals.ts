/**
 * MEMORY.md as a planner signal: a note the person let into the agent's memory that leaves work
 * open ("- [ ] …", "TODO", "FIXME", "follow up", "next time") is something the planner may propose
 * to finish. Only open items count, at most a few, each keyed by its own words so a dismissal
 * holds until the note changes. The file is the one `readMemory` reads (src/core/memory/memory.ts).
 */
import { readMemory } from '../memory/memory';
import type { PlannerSignal } from './planner';

/** At most this many notes are signals in one look. */
const MAX_MEMORY_SIGNALS = 3;
const OPEN = /^\[ \]|\b(TODO|FIXME)\b|\bfollow[- ]up\b|\bnext time\b|\bstill to do\b/i;

/** The open items among MEMORY.md's notes (`- ` entries), as signals. */
export function memorySignals(text: string): PlannerSignal[] {
  const out: PlannerSignal[] = [];
  for (const raw of text.split('\n')) {
    if (out.length >= MAX_MEMORY_SIGNALS) break;
    const line = raw.trim();
    if (!line.startsWith('- ')) continue;
    const note = line.slice(2).trim();
    if (!OPEN.test(note)) continue;
    out.push({
      key: `memory:${note.replace(/\s+/g, ' ').toLowerCase().slice(0, 80)}`,
      text: `A note in the agent's memory (MEMORY.md) leaves work open: ${note}`,
    });
  }
  return out;
}

/** The signals of the MEMORY.md at `file` (none when it does not exist). */
export async function memoryFileSignals(file: string): Promise<PlannerSignal[]> {
  const text = await readMemory(file);
  return text ? memorySignals(text) : [];
}
