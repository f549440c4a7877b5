import { MAX_RETRY_DELAY_SECONDS, RETRY_PERIOD_SECONDS, retryDelaySeconds } from './retry-schedule';

/** When each attempt is made, in seconds after the first, for `attempts` attempts. */
function attemptTimes(attempts: number): number[] {
  const times = [0];
  for (let attempt = 1; attempt < attempts; attempt += 1) times.push(times[attempt - 1] + retryDelaySeconds(attempt));
  return times;
}

describe('retryDelaySeconds', () => {
  it.each([
    [1, 10],
    [2, 30],
    [3, 60],
    [7, 60],
    [8, 120],
    [9, 240],
    [12, 1920],
    [13, MAX_RETRY_DELAY_SECONDS],
    [40, MAX_RETRY_DELAY_SECONDS],
  ])('waits after failed attempt %i: %i s', (attempt, seconds) => {
    expect(retryDelaySeconds(attempt)).toBe(seconds);
  });

  it('retries within 15 s, then at most 60 s apart for the first five minutes', () => {
    const times = attemptTimes(10);
    const early = times.filter((time) => time < 300);

    expect(times[1]).toBeLessThanOrEqual(15);
    expect(early.slice(1).every((time, i) => time - early[i] <= 60)).toBe(true);
    expect(times.find((time) => time >= 300)! - early.at(-1)!).toBeLessThanOrEqual(60);
  });

  it('keeps retrying, never more than an hour apart, past 24 hours', () => {
    const times = attemptTimes(40);

    expect(times.at(-1)).toBeGreaterThan(RETRY_PERIOD_SECONDS);
    expect(times.slice(1).every((time, i) => time - times[i] <= MAX_RETRY_DELAY_SECONDS)).toBe(true);
  });
});
