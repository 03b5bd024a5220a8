// The addon's platform name: the fast `ldd` check must agree with the C library Node itself
// reports, since a wrong answer loads no addon at all on the machine.
import { describe, expect, it } from 'vitest';

import { platformName, tripleToPlatform } from '../ts/native/locate.js';

describe('platformName', () => {
  it.runIf(process.platform === 'linux')('names the C library the running Node reports', () => {
    const header = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header;
    const libc = header.glibcVersionRuntime ? 'gnu' : 'musl';
    expect(platformName()).toBe(`linux-${process.arch}-${libc}`);
  });

  it('maps the build triples to napi-rs names', () => {
    expect(tripleToPlatform('x86_64-unknown-linux-gnu')).toBe('linux-x64-gnu');
    expect(tripleToPlatform('aarch64-unknown-linux-musl')).toBe('linux-arm64-musl');
    expect(tripleToPlatform('aarch64-apple-darwin')).toBe('darwin-arm64');
    expect(tripleToPlatform('x86_64-pc-windows-msvc')).toBe('win32-x64-msvc');
  });
});
