/** The class-histogram comparison behind compare_with_baseline, on hand-made histograms. */
import { describe, expect, it } from 'vitest';

import { compareHistograms } from '../../ts/mcp/histogram-compare.js';
import type { HistogramRow } from '../../ts/session/index.js';

const row = (className: string, count: number, shallow: number, classObjectId = 0): HistogramRow => ({ className, count, shallow, classObjectId });

const baseline = [row('com.acme.Cache$Entry', 100, 2400), row('byte[]', 10, 1000), row('com.acme.Gone', 3, 48), row('java.lang.String', 50, 1200), row('com.acme.Main', 1, 16)];
const current = [
  row('com.acme.Cache$Entry', 160, 2400, 1),
  row('com.acme.Cache$Entry', 40, 960, 2), // the same name under a second class loader
  row('byte[]', 12, 900),
  row('com.acme.New', 5, 80),
  row('java.lang.String', 50, 1200),
  row('com.acme.Main', 1, 16),
];

describe('compareHistograms', () => {
  it('sums classes of one name, subtracts, and orders by growth in bytes', () => {
    const c = compareHistograms(baseline, current, { limit: 10 });
    expect(c.rows).toEqual([
      { className: 'com.acme.Cache$Entry', baselineCount: 100, currentCount: 200, countDelta: 100, baselineBytes: 2400, currentBytes: 3360, bytesDelta: 960 },
      { className: 'com.acme.New', baselineCount: 0, currentCount: 5, countDelta: 5, baselineBytes: 0, currentBytes: 80, bytesDelta: 80 },
      { className: 'com.acme.Gone', baselineCount: 3, currentCount: 0, countDelta: -3, baselineBytes: 48, currentBytes: 0, bytesDelta: -48 },
      { className: 'byte[]', baselineCount: 10, currentCount: 12, countDelta: 2, baselineBytes: 1000, currentBytes: 900, bytesDelta: -100 },
    ]);
    expect(c.totals).toEqual({
      baseline: { objects: 164, bytes: 4664 },
      current: { objects: 268, bytes: 5556 },
      objectsDelta: 104,
      bytesDelta: 892,
    });
    expect(c.classes).toEqual({ shared: 4, onlyBaseline: 1, onlyCurrent: 1 });
    expect(c.matchingRows).toBe(4);
    expect(c.truncated).toBe(false);
    expect(c.note).toBeUndefined();
  });

  it('orders by instances, filters by pattern, keeps unchanged classes on request, and caps rows', () => {
    const byCount = compareHistograms(baseline, current, { sortBy: 'count', limit: 2 });
    expect(byCount.rows.map((r) => r.className)).toEqual(['com.acme.Cache$Entry', 'com.acme.New']);
    expect(byCount.truncated).toBe(true);
    expect(byCount.matchingRows).toBe(4);
    expect(compareHistograms(baseline, current, { pattern: 'ACME.c', limit: 10 }).rows.map((r) => r.className)).toEqual(['com.acme.Cache$Entry']);
    const all = compareHistograms(baseline, current, { changedOnly: false, limit: 10 });
    expect(all.rows.find((r) => r.className === 'java.lang.String')).toMatchObject({ countDelta: 0, bytesDelta: 0 });
  });

  it('says when the application classes of the two dumps hardly overlap', () => {
    const other = [row('org.other.Main', 1, 16), row('org.other.Worker', 4, 64), row('java.lang.String', 50, 1200)];
    const c = compareHistograms(baseline, other, { limit: 10 });
    expect(c.note).toMatch(/share only 0 of 5 application class names/);
    expect(c.note).toMatch(/different programs/);
  });
});
