/**
 * The messages of the index's progress a call waiting for it is sent (indexProgress): each phase
 * with how far it is, and the index's last report, `done` (1 of 1 from the builder), as the end
 * it is: `indexing the dump: done`, not `indexing the dump: done 1 of 1` as if it were a phase.
 */
import { describe, expect, it } from 'vitest';

import { CallProgress, indexProgress } from '../../ts/mcp/progress.js';

describe('indexProgress', () => {
  it('names each phase with how far it is, and the end as done', async () => {
    const sent: { progress: number; message: string; total?: number }[] = [];
    const call = new CallProgress('t', async (n) => void sent.push(n.params as never));
    const report = indexProgress(call, 'the baseline dump');
    report({ phase: 'records', done: 31, total: 5000 });
    report({ phase: 'records', done: 32, total: 5000 });
    report({ phase: 'index', done: 0, total: 4000 });
    report({ phase: 'writing cache', done: 7, total: 0 });
    report({ phase: 'done', done: 1, total: 1 });
    await call.flush();
    expect(sent.map((p) => [p.progress, p.message, p.total])).toEqual([
      [1, 'indexing the baseline dump: records 31 of 5000', undefined],
      // 32 of 5000 grew by less than a hundredth: not sent.
      [2, 'indexing the baseline dump: index 0 of 4000', undefined],
      [3, 'indexing the baseline dump: writing cache 7', undefined],
      [4, 'indexing the baseline dump: done', undefined],
    ]);
  });
});
