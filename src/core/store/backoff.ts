/**
 * Retry policy for nack'd triggers (docs/STORAGE.md "Retries and dead letters"):
 *
 *   delay(attempts) = min(capMs, baseMs * 2^(attempts - 1)) * (1 + jitter * u),  u uniform in [-1, 1)
 *
 * `attempts` counts deliveries, including the one that just failed (a claim counts one, so a
 * crash mid-delivery counts too). When attempts reaches maxAttempts the trigger is dead-lettered
 * instead of retried.
 */
export interface RetryPolicy {
  /** Delay after the first failure, before jitter. */
  baseMs: number;
  /** Upper bound of the un-jittered delay. */
  capMs: number;
  /** Deliveries allowed before dead-lettering. */
  maxAttempts: number;
  /** Fraction, 0..1: spreads retries so a burst of failures does not retry in lockstep. */
  jitter: number;
}

/** 2 s, 4 s, 8 s, 16 s, then dead after the 5th failed delivery; never more than 5 min between tries. */
export const DEFAULT_RETRY: RetryPolicy = { baseMs: 2_000, capMs: 5 * 60_000, maxAttempts: 5, jitter: 0.2 };

export function backoffDelay(attempts: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponent = Math.max(0, attempts - 1);
  // 2^exponent overflows to Infinity for huge attempt counts, which min() then caps: fine.
  const raw = Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
  const spread = policy.jitter * (2 * random() - 1);
  return Math.max(0, Math.round(raw * (1 + spread)));
}
