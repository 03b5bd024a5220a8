/**
 * The KnownHeap fixture dump (fixtures/dumps/KnownHeap-jdk17-coops.hprof), opened without the
 * index cache for the tests of the enclosing `describe` (or file).
 */
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

import { openHeap, type Heap } from '../../ts/index.js';

export const KNOWN_HEAP_DUMP = path.join(import.meta.dirname, '../../fixtures/dumps/KnownHeap-jdk17-coops.hprof');

/** Opens the dump before the tests of the enclosing block and closes it after; call the result for the heap. */
export function useKnownHeap(): () => Heap {
  let heap: Heap | undefined;
  beforeAll(async () => {
    heap = await openHeap(KNOWN_HEAP_DUMP, { cache: false });
  });
  afterAll(() => heap?.close());
  return () => {
    if (!heap) throw new Error(`the dump did not open: ${KNOWN_HEAP_DUMP}`);
    return heap;
  };
}
