/** The longest delay `setTimeout` honours: 2^31-1 ms (~24.8 days). Node fires a longer one at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Whether a timeout of `ms` is one a timer can hold: positive and at most `MAX_TIMER_MS`. A timeout
 * that is not (0, negative, longer) is as good as none.
 */
export function isTimerDelay(ms: number | undefined): ms is number {
  return ms !== undefined && ms > 0 && ms <= MAX_TIMER_MS;
}
