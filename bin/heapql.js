#!/usr/bin/env node
// The installed command: everything lives in the compiled CLI.
import('../dist/cli/entry.js').then((m) => m.start()).catch((err) => {
  process.stderr.write(`error: ${err?.message ?? err}\n`);
  process.exit(1);
});
