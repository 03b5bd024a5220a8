/**
 * Where the addon for this machine is. In order: a source build (`native/heapql.<platform>.node`
 * in a checkout, after `npm run build:native`), the asset of the single-file binary (same
 * path), or the prebuilt platform package npm installs through heapql's optionalDependencies
 * (`heapql-<platform>`, holding the same file). Missing everywhere, it says to build it in a
 * source checkout, else which package to install.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import { HeapqlError } from '../errors.js';
import { inSingleExecutable, packageFile, readPackageFile } from '../package-files.js';

export interface AddonLocation {
  file: string;
  /** How it got here, for `--version` and for what to do when it is stale. */
  origin: 'source build' | 'embedded' | 'platform package';
  /** What to do when this addon does not fit. */
  fix: string;
}

/** napi-rs's platform name: linux-x64-gnu, linux-arm64-musl, darwin-arm64, win32-x64-msvc. */
export function platformName(): string {
  if (process.platform === 'linux') return `linux-${process.arch}-${isMusl() ? 'musl' : 'gnu'}`;
  if (process.platform === 'win32') return `win32-${process.arch}-msvc`;
  return `${process.platform}-${process.arch}`;
}

/**
 * Whether this Linux runs musl. Debian's and Alpine's `ldd` scripts name their C library, and
 * reading one is instant where `process.report.getReport()` (the fallback) takes milliseconds of
 * every start-up.
 */
function isMusl(): boolean {
  const named = libcNamedBy(lddScript());
  if (named) return named === 'musl';
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return !report?.header?.glibcVersionRuntime;
}

/** The C library an `ldd` script names, if it names one. */
export function libcNamedBy(script: string): 'gnu' | 'musl' | undefined {
  if (script.includes('musl')) return 'musl';
  if (script.includes('GNU C Library') || script.includes('GLIBC')) return 'gnu';
  return undefined;
}

/** `/usr/bin/ldd` (a shell script on glibc and musl systems), or '' where there is none. */
export function lddScript(): string {
  try {
    return readFileSync('/usr/bin/ldd', 'latin1');
  } catch {
    return '';
  }
}

export function platformPackage(): string {
  return `heapql-${platformName()}`;
}

export function locateAddon(): AddonLocation {
  const platform = platformName();
  const local = packageFile(`native/heapql.${platform}.node`);
  if (local && inSingleExecutable()) return { file: local, origin: 'embedded', fix: 'rebuild the binary (npm run build:binary)' };
  if (local) return { file: local, origin: 'source build', fix: 'run `npm run build:native` in the checkout' };
  const pkg = platformPackage();
  try {
    const file = createRequire(import.meta.url).resolve(pkg);
    return { file, origin: 'platform package', fix: `reinstall heapql so that ${pkg} matches it` };
  } catch {
    throw new HeapqlError('ERR_NATIVE_MISSING', missingMessage(platform, pkg));
  }
}

/**
 * A source checkout (the Rust workspace beside package.json), where the addon is built, not
 * installed. A published package and the single-file binary hold no Rust sources.
 */
function inSourceCheckout(): boolean {
  return !inSingleExecutable() && packageFile('Cargo.toml') !== undefined && packageFile('crates') !== undefined;
}

function missingMessage(platform: string, pkg: string): string {
  if (inSourceCheckout()) {
    return (
      `heapql's native addon for ${platform} is missing: this source checkout has no native/heapql.${platform}.node (nor the package ${pkg}). ` +
      'Build it: run `npm run build:native` (needs Rust ≥ 1.85; `npm install` and `npm run build` build it too).'
    );
  }
  const prebuilt = prebuiltPlatforms();
  const head = `heapql's native addon for ${platform} is missing: the package ${pkg} is not installed`;
  if (prebuilt.includes(platform)) {
    return `${head}. npm installs it with heapql as an optional dependency: reinstall heapql without --omit=optional (or --no-optional).`;
  }
  return (
    `${head}, and there is no prebuilt addon for ${platform} (prebuilt: ${prebuilt.join(', ') || 'none'}). ` +
    'Build from source instead: clone heapql and run `npm install` (needs Rust >= 1.85).'
  );
}

/** The platforms with a prebuilt package, from package.json's napi.targets (napi-rs names). */
function prebuiltPlatforms(): string[] {
  const pkg = JSON.parse(readPackageFile('package.json')) as { napi?: { targets?: string[] } };
  return (pkg.napi?.targets ?? []).map(tripleToPlatform);
}

/** x86_64-unknown-linux-gnu → linux-x64-gnu (the subset of napi-rs's mapping heapql could ship). */
export function tripleToPlatform(triple: string): string {
  const [arch, , os, abi] = triple.split('-');
  const cpu = ({ x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' } as Record<string, string>)[arch!] ?? arch;
  if (os === 'linux') return `linux-${cpu}-${abi}`;
  if (os === 'darwin') return `darwin-${cpu}`;
  if (os === 'windows') return `win32-${cpu}-${abi}`;
  return `${os}-${cpu}`;
}
