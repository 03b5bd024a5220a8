/** The package version, read once from package.json. */
import { readPackageFile } from './package-files.js';

export const VERSION: string = (JSON.parse(readPackageFile('package.json')) as { version: string }).version;
