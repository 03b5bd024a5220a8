/**
 * `heapql --version`: heapql's version, then the addon's (its version, the target it was
 * compiled for, its profile and where it was loaded from), then the Node.js that runs it.
 */
import { native, nativeLocation } from '../native/index.js';
import { inSingleExecutable } from '../package-files.js';
import { VERSION } from '../version.js';

export function printVersion(): void {
  // The package version comes first and alone, so it is printed even when the addon is missing.
  process.stdout.write(`heapql ${VERSION}\n`);
  const addon = native();
  const info = addon.buildInfo();
  const location = nativeLocation();
  const from =
    location.origin === 'embedded' ? 'embedded in this executable' : location.origin === 'platform package' ? `from ${location.file}` : `from ${location.file} (source build)`;
  process.stdout.write(
    `addon ${info.version} for ${info.target} (${info.profile} build, native API ${addon.nativeApiVersion()}), ${from}\n` +
    `node ${process.version} ${process.platform}-${process.arch}${inSingleExecutable() ? ' (single executable)' : ''}\n`
  );
}
