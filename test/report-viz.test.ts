import { describe, expect, test } from 'vitest';

import { planQuery, vizWarnings, withVizWarnings } from '../ts/report/charts.js';
import type { QueryResult } from '../ts/report/model.js';
import { sampleModel } from './report-sample.js';

function result(viz: QueryResult['viz'], extra: Partial<QueryResult> = {}): QueryResult {
  return {
    name: 'q1',
    oql: 'SELECT ...',
    columns: [
      { name: 's', type: 'object' },
      { name: 'classof(s).@displayName', type: 'string' },
      { name: 's.@usedHeapSize', type: 'number' },
      { name: 'n', type: 'number' },
    ],
    rows: [
      [{ objectId: 1, address: '0x10', className: 'A', label: 'A @ 0x10' }, 'A', 40, 1],
      [{ objectId: 2, address: '0x20', className: 'B', label: 'B @ 0x20' }, 'B', 30, 2],
      [{ objectId: 3, address: '0x30', className: 'C', label: 'C @ 0x30' }, 'C', null, 3],
    ],
    rowCount: 3,
    truncated: false,
    elapsedMs: 1,
    ...(viz ? { viz } : {}),
    ...extra,
  };
}

describe('@viz chart plans', () => {
  test('defaults: the first numeric column is the value, the first non-numeric the label; null values are skipped', () => {
    const v = planQuery(result({ kind: 'histogram' }), 0);
    expect(v.kind).toBe('histogram');
    expect(v.data).toEqual([{ label: 'A @ 0x10', value: 40 }, { label: 'B @ 0x20', value: 30 }]);
    expect(v.warning).toBeNull();
  });

  test('columns by alias, by attribute and by 1-based position', () => {
    expect(planQuery(result({ kind: 'piechart', label: 'classof(s).@displayName', value: 'n' }), 0).data).toEqual([
      { label: 'A', value: 1 },
      { label: 'B', value: 2 },
      { label: 'C', value: 3 },
    ]);
    expect(planQuery(result({ kind: 'piechart', label: 2, value: '@usedHeapSize' }), 0).data.map((d) => d.value)).toEqual([40, 30]);
    expect(planQuery(result({ kind: 'treemap', label: 2, value: 4 }), 0).data.map((d) => d.label)).toEqual(['A', 'B', 'C']);
  });

  test('cap= limits the chart only; title= and name= carry through', () => {
    const v = planQuery(result({ kind: 'histogram', value: 'n', cap: 2, title: 'Top', name: 'Sizes' }), 4);
    expect(v.data).toHaveLength(2);
    expect(v.chartable).toBe(3);
    expect(v.title).toBe('Top');
    expect(v.heading).toBe('Sizes');
    expect(planQuery(result(undefined, { name: '' }), 4).heading).toBe('q5');
  });

  test('what cannot be drawn falls back to a table with a warning, keeping name=', () => {
    const cases: [QueryResult, string][] = [
      [result({ kind: 'histogram', value: 'nope', name: 'N' }), 'N: cannot draw a histogram: value=nope: no such column'],
      [result({ kind: 'piechart', value: 2 }), 'q1: cannot draw a piechart: value=2: column "classof(s).@displayName" is not numeric'],
      [result({ kind: 'treemap' }, { rows: [], rowCount: 0 }), 'q1: cannot draw a treemap: the result has no rows'],
      [result({ kind: 'piechart', value: 'n' }, { rows: [[null, 'A', 1, -4]] }), 'q1: cannot draw a piechart: column "n" has negative values'],
      [result({ kind: 'treemap', value: 'n' }, { rows: [[null, 'A', 1, 0]] }), 'q1: cannot draw a treemap: every value is 0'],
      [result({ kind: 'histogram' }, { columns: [{ name: 'x', type: 'string' }], rows: [['a']] }), 'q1: cannot draw a histogram: the result has no numeric column to chart'],
    ];
    for (const [q, warning] of cases) {
      const v = planQuery(q, 0);
      expect(v.kind).toBe('table');
      expect(v.warning).toContain(warning);
      expect(v.heading).toBe(q.viz?.name ?? 'q1');
    }
  });

  test('warnings go into the model once, including notes the query layer left about a directive', () => {
    const m = sampleModel();
    m.queries[3].viz = { kind: 'piechart' };
    m.queries[2].note = '@viz directive ignored: unknown chart kind "bubble"; showing a table';
    expect(vizWarnings(m.queries).map((w) => w.message)).toEqual([
      'q3: @viz directive ignored: unknown chart kind "bubble"; showing a table',
      'q4: cannot draw a piechart: the result has no numeric column to chart; showing the table',
    ]);
    const once = withVizWarnings(m);
    expect(once.warnings).toHaveLength(2);
    expect(withVizWarnings(once).warnings).toHaveLength(2);
    expect(withVizWarnings(sampleModel()).warnings).toEqual([]);
  });
});
