import { describe, expect, it } from 'vitest';
import { lightLoadFloor } from '../../bench/light-load-floor';

describe("the bench's light-load floor", () => {
  it("drives a bare server at the paced rate and at saturation and reports its CPU per request of each, their ratio, and the paced requests' latency", async () => {
    const floor = await lightLoadFloor({ perSecond: 200, seconds: 2, concurrency: 8 });
    expect(floor.perSecond).toBe(200);
    // An open loop: every request due in the two seconds is sent and answered, none dropped.
    expect(floor.paced.count).toBe(400);
    expect(floor.paced.p50Ms).toBeGreaterThan(0);
    expect(floor.paced.p99Ms).toBeGreaterThanOrEqual(floor.paced.p50Ms);
    expect(floor.saturatedUsPerRequest).toBeGreaterThan(0);
    expect(floor.pacedUsPerRequest).toBeGreaterThan(0);
    expect(floor.ratio).toBeCloseTo(floor.pacedUsPerRequest / floor.saturatedUsPerRequest, 1);
  });
});
