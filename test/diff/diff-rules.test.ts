/** The matching rules on their own: path keys, loader keys, packages, statuses, the same-program heuristic. */
import { describe, expect, it } from 'vitest';

import { applicationClasses, loaderKey, mainClassOf, packageOf, pathKey, sameProgram, statusOf } from '../../ts/diff/index.js';

const step = (objectId: number, className: string, label: string, via: string) => ({ object: { objectId, className, label }, via });

describe('matching keys', () => {
  it('a path key names the root, then field → class per step; array positions and locals are generalized, addresses dropped', () => {
    const threads = new Map([[7, 'worker-1']]);
    const key = pathKey(
      [
        step(7, 'java.lang.Thread', 'java.lang.Thread @ 0x1000', 'Thread'),
        step(8, 'java.lang.Object[]', 'java.lang.Object[10] @ 0x2000', '<Java Local in frame 3>'),
        step(9, 'com.acme.Session', 'com.acme.Session @ 0x3000', '[4]'),
        step(10, 'com.acme.Cache', 'class com.acme.Cache @ 0x4000', '<class>'),
      ],
      threads,
    );
    expect(key).toBe('thread "worker-1" · <local> → java.lang.Object[] · [] → com.acme.Session · <class> → class com.acme.Cache');
    expect(pathKey([step(1, 'com.acme.App', 'class com.acme.App @ 0xfd00', 'System Class'), step(2, 'java.util.HashMap', 'java.util.HashMap @ 0xfe00', 'CACHE')], new Map())).toBe(
      'class com.acme.App · CACHE → java.util.HashMap',
    );
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
