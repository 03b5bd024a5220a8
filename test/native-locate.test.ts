// The addon's platform name: the fast `ldd` check must agree with the C library Node itself
// reports, since a wrong answer loads no addon at all on the machine.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

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

describe('a missing addon', () => {
  const root = path.resolve(__dirname, '..');
  /** A copy of the built package with no addon anywhere: `source` adds a checkout's Rust sources. */
  function copy(source: boolean): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-no-addon-'));
    for (const part of ['bin', 'dist', 'package.json']) cpSync(path.join(root, part), path.join(dir, part), { recursive: true });
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    if (source) {
      cpSync(path.join(root, 'Cargo.toml'), path.join(dir, 'Cargo.toml'));
      mkdirSync(path.join(dir, 'crates'));
    }
    return dir;
  }
  const version = (dir: string) => spawnSync(process.execPath, [path.join(dir, 'bin/heapql.js'), '--version'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });

  it.runIf(process.platform === 'linux' && process.arch === 'x64')('in a source checkout (Cargo.toml, crates/): says to run npm run build:native', () => {
    const dir = copy(true);
    try {
      const r = version(dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^error: heapql's native addon for linux-x64-gnu is missing: this source checkout has no native\/heapql\.linux-x64-gnu\.node \(nor the package heapql-linux-x64-gnu\)\. Build it: run `npm run build:native` \(needs Rust ≥ 1\.85; /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(process.platform === 'linux' && process.arch === 'x64')('in an installed package: names the platform package', () => {
    const dir = copy(false);
    try {
      const r = version(dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^error: heapql's native addon for linux-x64-gnu is missing: the package heapql-linux-x64-gnu is not installed\./);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
