import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests open real dumps and real servers; give slow CI machines room without timing anything.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Compiles the OQL grammar (ts/oql/oql.ne) before any test imports the parser; gives the run
    // a temporary directory and a cache directory of its own (removed at its end).
    globalSetup: ['test/tools/grammar-setup.mjs', 'test/tools/temp-setup.mjs'],
  },
});
