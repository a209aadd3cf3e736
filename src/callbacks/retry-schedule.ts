import type { RandomSource } from '../random.js';

// When to try a failed delivery again. The schedule (CALLBACK_RETRY_SCHEDULE) lists the seconds
// between attempts, so a delivery gets schedule.length + 1 attempts in one round. Each wait is
// spread by +-20 % so a receiver that comes back after an outage is not hit by every queued
// event in the same second.

export const JITTER = 0.2;
/** A receiver's Retry-After is honoured up to this many seconds, so one header cannot park an event for days. */
export const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * Seconds to wait after a failed attempt, or undefined when the round is exhausted.
 * `attemptsInRound` counts the attempts made in this round, including the one that just failed.
 */
export function retryDelaySeconds(
  schedule: readonly number[],
  attemptsInRound: number,
  random: RandomSource,
): number | undefined {
  const base = schedule[attemptsInRound - 1];
  if (base === undefined) return undefined;
  return base * (1 + (random.float() * 2 - 1) * JITTER);
}

/** Retry-After as seconds (delta-seconds or an HTTP date), clamped to [0, MAX_RETRY_AFTER_SECONDS]. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  let seconds: number;
  if (/^\d+$/.test(trimmed)) seconds = Number(trimmed);
  else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return undefined;
    seconds = (at - now.getTime()) / 1000;
  }
  return Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_SECONDS);
}

/** Statuses whose Retry-After is honoured. */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);
