/**
 * The one polling helper of the test tiers, for what has no signal of its own (a workbench, an
 * extension host, a child process): looks at `probe` every `intervalMs` until it returns something
 * other than undefined or false, and fails after `timeoutMs` naming `what` (and the `detail` of
 * the last look). Never a fixed sleep that decides a result: the timeout only bounds a failure.
 * Engine tests that can use the fake clock or an exact signal do that instead.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; intervalMs?: number; detail?: () => string } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${options.detail ? `; ${options.detail()}` : ''}`);
}
