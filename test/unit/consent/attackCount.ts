/**
 * Counts the attack inputs the consent suites try and how many of them held (were refused or
 * asked), so the run prints one line with both (issue #11 asks for the count in the test output).
 */
let tried = 0;
let held = 0;

/** Records one attack input; `didHold` is what the test asserted right before. */
export function attack(didHold: boolean): void {
  tried += 1;
  if (didHold) held += 1;
}

export function attackCounts(): { tried: number; held: number } {
  return { tried, held };
}

// A root-level hook, registered once when the first consent suite loads: it prints after every suite ran.
after(() => {
  console.log(`      consent and settings attacks: ${tried} attack inputs tried, ${held} held`);
});
