/**
 * `heapql diff` of two Android dumps with app, zygote and image heaps: the per-heap totals in
 * both dumps, so the app's own growth is told from the system's shared memory; nothing of it for
 * dumps without heaps.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { diffDumps, renderDiffHtml, renderDiffMarkdown, validateDiffModel } from '../../ts/diff/index.js';
import { HprofWriter, T } from '../tools/hprof-writer.js';
import { demoDump } from './fixtures.js';

const dir = mkdtempSync(path.join(tmpdir(), 'heapql-diff-heaps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Image: two byte[100]; zygote: `zygote` byte[1000]s; app: `app` byte[5000]s; each array a JNI global. */
function androidDump(name: string, zygote: number, app: number): string {
  const d = new HprofWriter();
  const object = d.defineClass('java.lang.Object', 0);
  d.defineClass('java.lang.Class', object);
  d.defineClass('byte[]', object);
  const global = (id: number) => d.roots.u1(0x01).u4(id).u4(0);
  d.heapInfo(0x49, 'image');
  for (let i = 0; i < 2; i++) global(d.primitiveArray(T.byte, 100, Buffer.alloc(100, i + 1)));
  d.heapInfo(0x5a, 'zygote');
  for (let i = 0; i < zygote; i++) global(d.primitiveArray(T.byte, 1000, Buffer.alloc(1000, i + 1)));
  d.heapInfo(0x41, 'app');
  for (let i = 0; i < app; i++) global(d.primitiveArray(T.byte, 5000, Buffer.alloc(5000, i + 1)));
  return d.write(path.join(dir, name), { systemClassRoots: true, format: 'JAVA PROFILE 1.0.3' });
}

describe('diff of two dumps with several heaps', () => {
  it('compares each heap\'s objects and shallow bytes, the app\'s growth apart from the zygote\'s', async () => {
    // The app grows by two byte[5000] (+10,024 B: a 12-byte header each), the zygote loses one byte[1000].
    const m = await diffDumps(androidDump('before.hprof', 3, 1), androidDump('after.hprof', 2, 3));
    expect(validateDiffModel(m)).toEqual({ ok: true, errors: [] });
    const rows = m.heaps!.map((h) => [h.name, h.objects.baseline, h.objects.current, h.shallow.baseline, h.shallow.current, h.shallow.delta]);
    expect(rows).toEqual([
      ['app', 1, 3, 5012, 3 * 5012, 2 * 5012],
      ['default', 3, 3, rows.find((r) => r[0] === 'default')![3], rows.find((r) => r[0] === 'default')![3], 0],
      ['image', 2, 2, 224, 224, 0],
      ['zygote', 3, 2, 3036, 2024, -1012],
    ]);
    expect(m.heaps!.reduce((n, h) => n + h.shallow.delta, 0)).toBe(m.usedHeap.delta);
    expect(m.heaps!.reduce((n, h) => n + h.objects.delta, 0)).toBe(m.objects.delta);

    const md = renderDiffMarkdown(m);
    expect(md).toContain('| app heap | 4.9 KiB (1 object) | 14.7 KiB (3 objects) | +9.8 KiB (+200.0%), +2 objects |');
    expect(md).toContain('| zygote heap | 3.0 KiB (3 objects) | 2.0 KiB (2 objects) | −1012 B (−33.3%), −1 object |');
    expect(renderDiffHtml(m)).toContain('<td>app heap</td>');
  });

  it('dumps without heaps: no heaps in the model, no heap rows', async () => {
    const m = await diffDumps(demoDump, demoDump);
    expect(m).not.toHaveProperty('heaps');
    expect(validateDiffModel(m).ok).toBe(true);
    expect(renderDiffMarkdown(m)).not.toMatch(/\| (app|zygote|image|default) heap \|/);
  });
});
