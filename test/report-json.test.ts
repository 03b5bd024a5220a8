import { describe, expect, test } from 'vitest';

import { HeapqlError } from '../ts/errors.js';
import { queryResultJsonSchema } from '../ts/query/schema.js';
import { renderJson, reportJsonSchema, validateReportModel } from '../ts/report/json.js';
import { REPORT_SCHEMA_VERSION } from '../ts/report/model.js';
import { sampleModel } from './report-sample.js';

describe('JSON report', () => {
  test('the sample model validates and round-trips', () => {
    const model = sampleModel();
    expect(validateReportModel(model)).toEqual({ ok: true, errors: [] });
    const text = renderJson(model);
    expect(JSON.parse(text)).toEqual(model);
    expect(Object.keys(JSON.parse(text))).toEqual(
      expect.arrayContaining(['schemaVersion', 'overview', 'leakSuspects', 'topConsumers', 'threads', 'queries']),
    );
  });

  test('a model that breaks the schema is a clear internal error naming each path', () => {
    const model = sampleModel() as any;
    model.overview.heap.objects = 1.5;
    model.leakSuspects.suspects[0].retainedPercent = 140;
    model.threads.threads[0].stack = [];
    model.queries[3].rows[0][1] = { objectId: 3, className: 'java.lang.Thread', label: 'main' };
    let err: unknown;
    try {
      renderJson(model);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HeapqlError);
    const e = err as HeapqlError;
    expect(e.code).toBe('ERR_INTERNAL');
    expect(e.message).toContain('a bug in heapql');
    expect(e.message).toContain('/overview/heap/objects must be integer');
    expect(e.message).toContain('/leakSuspects/suspects/0/retainedPercent must be <= 100');
    expect(e.message).toContain('/threads/threads/0 must NOT have additional properties (stack)');
    expect(e.message).toContain('/queries/3/rows/0/1');
  });

  test('the printed schema is the one the code validates with, and reuses the QueryResult schema', () => {
    const schema = reportJsonSchema() as any;
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.properties.schemaVersion.const).toBe(REPORT_SCHEMA_VERSION);
    expect(schema.required).toEqual(expect.arrayContaining(['schemaVersion', 'overview', 'leakSuspects', 'topConsumers', 'threads', 'queries']));
    const { $schema: _, ...query } = queryResultJsonSchema();
    expect(schema.properties.queries.items).toEqual(query);
    expect(validateReportModel({ ...sampleModel(), schemaVersion: REPORT_SCHEMA_VERSION + 1 }).ok).toBe(false);
  });
});
