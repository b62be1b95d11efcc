/**
 * Counts the attack inputs the security suites try and hold, one line per category and a total,
 * printed once after the whole run (a root hook: this module is loaded once however many suites
 * import it). A category's "held" is only counted after its assertion passed.
 */
const tally = new Map<string, { tried: number; held: number }>();

/** Runs one attack's assertion; counts it as tried, and as held only if the assertion passes. */
export async function attack(category: string, check: () => unknown): Promise<void> {
  const entry = tally.get(category) ?? { tried: 0, held: 0 };
  tally.set(category, entry);
  entry.tried += 1;
  await check();
  entry.held += 1;
}

after(function printTally() {
  if (tally.size === 0) return;
  let tried = 0;
  let held = 0;
  const lines = [...tally.entries()].map(([category, entry]) => {
    tried += entry.tried;
    held += entry.held;
    return `  attacks: ${category}: ${entry.held}/${entry.tried} held`;
  });
  // Test output, not src: the brief asks the run to show what was tried.
  process.stdout.write(`\n${lines.join('\n')}\n  attacks: total: ${held}/${tried} held\n`);
});
