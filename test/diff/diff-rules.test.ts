/** The matching rules on their own: path keys, loader keys, packages, statuses, the same-program heuristic. */
import { describe, expect, it } from 'vitest';

import { applicationClasses, loaderKey, mainClassOf, packageOf, pathKey, sameProgram, statusOf, type ThreadSteps } from '../../ts/diff/index.js';
import { labelThreads, threadLabels, threadStep } from '../../ts/diff/threads.js';

const step = (objectId: number, className: string, label: string, via: string) => ({ object: { objectId, className, label }, via });

describe('matching keys', () => {
  it('a path key names the root, then field → class per step; array positions and locals are generalized, addresses dropped', () => {
    // A thread's step text as the comparison labels it (threads.ts), written as it is.
    const threadSteps: ThreadSteps = new Map([[7, 'thread "worker-1"']]);
    const key = pathKey(
      [
        step(7, 'java.lang.Thread', 'java.lang.Thread @ 0x1000', 'Thread'),
        step(8, 'java.lang.Object[]', 'java.lang.Object[10] @ 0x2000', '<Java Local in frame 3>'),
        step(9, 'com.acme.Session', 'com.acme.Session @ 0x3000', '[4]'),
        step(10, 'com.acme.Cache', 'class com.acme.Cache @ 0x4000', '<class>'),
      ],
      threadSteps,
    );
    expect(key).toBe('thread "worker-1" · <local> → java.lang.Object[] · [] → com.acme.Session · <class> → class com.acme.Cache');
    expect(pathKey([step(1, 'com.acme.App', 'class com.acme.App @ 0xfd00', 'System Class'), step(2, 'java.util.HashMap', 'java.util.HashMap @ 0xfe00', 'CACHE')], new Map())).toBe(
      'class com.acme.App · CACHE → java.util.HashMap',
    );
  });

  const t = (objectId: number, name: string, tid: number | null, retained: number) => ({ objectId, name, tid, retained });
  const byId = (m: Map<number, string>) => [...m].sort(([a], [b]) => a - b).map(([, l]) => l);

  it('thread labels: shared names get the tid, paired by tid, else by size; in one JVM a lone name pairs by tid too', () => {
    const labels = threadLabels(
      [t(1, 'main', 1, 10), t(2, 'worker', 12, 50), t(3, 'pool', 21, 300), t(4, 'pool', 22, 100), t(5, 'agent', null, 9), t(6, 'agent', null, 7)],
      [t(11, 'main', 1, 10), t(12, 'worker', 14, 60), t(13, 'pool', 22, 100), t(15, 'agent', null, 8), t(16, 'new', 30, 1)],
    );
    // The dumps share threads (main #1, pool #22): one JVM. `worker` #12 ended and #14 started
    // between them (tids are never reused): two threads, gone and new, each with its tid; it
    // was `thread "worker"` on both sides, one thread that grew, before.
    expect(byId(labels.baseline)).toEqual(['thread "main"', 'thread "worker" #12', 'thread "pool" #21', 'thread "pool" #22', 'thread "agent" (1)', 'thread "agent" (2)']);
    expect(byId(labels.current)).toEqual(['thread "main"', 'thread "worker" #14', 'thread "pool" #22', 'thread "agent" (1)', 'thread "new"']);
    // tid 22 in both; 21 ended. Without tids (the JDK 7 hprof agent's 0), biggest with biggest.
    expect(labels.baseline.get(4)).toBe(labels.current.get(13));
    expect(labels.current.get(15)).toBe(labels.baseline.get(5));
    expect(labelThreads(`${threadStep(3)} · <local> → byte[]`, labels.baseline)).toBe('thread "pool" #21 · <local> → byte[]');
  });

  it('thread labels: a lone name pairs by name in another run (the dumps share no name and tid), and when a tid is the same', () => {
    const otherRun = threadLabels([t(1, 'main', 2, 10), t(2, 'worker', 12, 50)], [t(11, 'main', 3, 10), t(12, 'worker', 14, 60)]);
    expect(byId(otherRun.baseline)).toEqual(['thread "main"', 'thread "worker"']);
    expect(byId(otherRun.current)).toEqual(['thread "main"', 'thread "worker"']);
    const kept = threadLabels([t(1, 'main', 1, 10), t(2, 'worker', 12, 50)], [t(11, 'main', 1, 10), t(12, 'worker', 12, 60)]);
    expect(byId(kept.current)).toEqual(['thread "main"', 'thread "worker"']);
    // No tid on either side (a dump without the field): by name, whatever the other threads say.
    const noTid = threadLabels([t(1, 'main', 1, 10), t(2, 'agent', null, 5)], [t(11, 'main', 1, 10), t(12, 'agent', null, 6)]);
    expect(noTid.baseline.get(2)).toBe('thread "agent"');
    expect(noTid.current.get(12)).toBe('thread "agent"');
  });

  it('thread labels: in one JVM, threads without a tid still pair by name among themselves (those with one do not)', () => {
    // A namesake paired by tid makes the name one JVM's; the tid-less `pool` is the same on both sides.
    const same = threadLabels([t(1, 'pool', 21, 300), t(2, 'pool', null, 100)], [t(11, 'pool', 21, 300), t(12, 'pool', null, 100)]);
    expect(same.baseline.get(1)).toBe('thread "pool" #21');
    expect(same.current.get(11)).toBe('thread "pool" #21');
    expect(same.baseline.get(2)).toBe('thread "pool" (2)');
    expect(same.current.get(12)).toBe('thread "pool" (2)');
    // #22 ended and #23 started: gone and new; the two without a tid pair biggest with biggest.
    const churn = threadLabels(
      [t(1, 'pool', 21, 300), t(2, 'pool', 22, 200), t(3, 'pool', null, 100), t(4, 'pool', null, 50)],
      [t(11, 'pool', 21, 300), t(12, 'pool', 23, 250), t(13, 'pool', null, 40), t(14, 'pool', null, 120)],
    );
    expect(byId(churn.baseline)).toEqual(['thread "pool" #21', 'thread "pool" #22', 'thread "pool" (2)', 'thread "pool" (3)']);
    expect(byId(churn.current)).toEqual(['thread "pool" #21', 'thread "pool" #23', 'thread "pool" (3)', 'thread "pool" (2)']);
    // A lone name in one JVM: one side without a tid does not pair with one that has a tid.
    const mixed = threadLabels([t(1, 'main', 1, 10), t(2, 'worker', 12, 50)], [t(11, 'main', 1, 10), t(12, 'worker', null, 60)]);
    expect(mixed.baseline.get(2)).toBe('thread "worker" #12');
    expect(mixed.current.get(12)).toBe('thread "worker" (2)');
  });

  it('loader keys drop addresses; packages take the element class of arrays', () => {
    expect(loaderKey(null)).toBe('<bootstrap>');
    expect(loaderKey('app')).toBe('app');
    expect(loaderKey('com.acme.PluginLoader @ 0x7f00a0')).toBe('com.acme.PluginLoader');
    expect(packageOf('com.acme.Session[][]')).toBe('com.acme');
    expect(packageOf('byte[]')).toBe('(no package)');
    expect(packageOf('Main')).toBe('(no package)');
  });

  it('statuses: within 1 % of the baseline is unchanged', () => {
    expect(statusOf(null, 5)).toBe('new');
    expect(statusOf(5, null)).toBe('gone');
    expect(statusOf(1000, 1010)).toBe('unchanged');
    expect(statusOf(1000, 990)).toBe('unchanged');
    expect(statusOf(1000, 1011)).toBe('grown');
    expect(statusOf(1000, 989)).toBe('shrunk');
  });
});

describe('same program', () => {
  const jdk = ['java.lang.String', 'java.util.HashMap', 'jdk.internal.misc.Unsafe', 'sun.misc.Launcher', 'byte[]', 'int[][]'];

  it('main class: first word of the command; a jar by its file name', () => {
    expect(mainClassOf('com.acme.Main --port 80')).toBe('com.acme.Main');
    expect(mainClassOf('/opt/acme/app.jar -v')).toBe('app.jar');
    expect(mainClassOf(null)).toBe(null);
    expect(mainClassOf('  ')).toBe(null);
  });

  it('application classes leave out the platform and primitive arrays, and count arrays as their element', () => {
    expect([...applicationClasses([...jdk, 'com.acme.A', 'com.acme.A[]', 'com.acme.A$$Lambda$1+0x0000000800c01000'])].sort()).toEqual(['com.acme.A', 'com.acme.A$$Lambda$1']);
  });

  it('different when the main classes differ or fewer than half of the application classes are shared; unknown without signals', () => {
    const acme = [...jdk, 'com.acme.A', 'com.acme.B', 'com.acme.C', 'com.acme.D'];
    expect(sameProgram({ mainClass: 'com.acme.Main', classNames: acme }, { mainClass: 'com.acme.Main', classNames: [...acme, 'com.acme.E'] }).verdict).toBe('same');
    const other = sameProgram({ mainClass: null, classNames: acme }, { mainClass: null, classNames: [...jdk, 'com.acme.A', 'org.other.X', 'org.other.Y', 'org.other.Z'] });
    expect(other).toMatchObject({ verdict: 'different', applicationClasses: { baseline: 4, current: 4, shared: 1, overlapPercent: 25 } });
    expect(other.note).toContain('1 of 4 application classes are shared (25.0%)');
    expect(sameProgram({ mainClass: 'A', classNames: acme }, { mainClass: 'B', classNames: acme }).verdict).toBe('different');
    expect(sameProgram({ mainClass: null, classNames: jdk }, { mainClass: null, classNames: jdk })).toMatchObject({ verdict: 'unknown', note: null });
  });
});
