// The addon's platform name: the fast `ldd` check must agree with the C library Node itself
// reports, since a wrong answer loads no addon at all on the machine.
import { existsSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { libcNamedBy, lddScript, platformName, tripleToPlatform } from '../ts/native/locate.js';

/** The C library the running Node was built against, as its own report says. */
function reportedLibc(): 'gnu' | 'musl' {
  const header = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header;
  return header.glibcVersionRuntime ? 'gnu' : 'musl';
}

describe('platformName', () => {
  it.runIf(process.platform === 'linux')('names the C library the running Node reports', () => {
    expect(platformName()).toBe(`linux-${process.arch}-${reportedLibc()}`);
  });

  // Skipped, not passed, where there is no ldd: then only the fallback would be compared with itself.
  it.runIf(process.platform === 'linux' && existsSync('/usr/bin/ldd'))('reads it from this machine\'s ldd, without the fallback', () => {
    expect(libcNamedBy(lddScript())).toBe(reportedLibc());
  });

  it('tells the C library from the text of an ldd script', () => {
    expect(libcNamedBy('#! /bin/bash\n# This file is part of the GNU C Library.\n')).toBe('gnu');
    expect(libcNamedBy('#!/bin/sh\nexec /lib/ld-musl-x86_64.so.1 --list "$@"\n')).toBe('musl');
    expect(libcNamedBy('')).toBeUndefined();
    expect(libcNamedBy('#!/bin/sh\necho unknown\n')).toBeUndefined();
  });

  it('maps the build triples to napi-rs names', () => {
    expect(tripleToPlatform('x86_64-unknown-linux-gnu')).toBe('linux-x64-gnu');
    expect(tripleToPlatform('aarch64-unknown-linux-musl')).toBe('linux-arm64-musl');
    expect(tripleToPlatform('aarch64-apple-darwin')).toBe('darwin-arm64');
    expect(tripleToPlatform('x86_64-pc-windows-msvc')).toBe('win32-x64-msvc');
  });
});
