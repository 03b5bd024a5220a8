#!/usr/bin/env node
// The installed command: everything lives in the compiled CLI.
import('../dist/cli/main.js').then((m) => m.main()).catch((err) => {
  process.stderr.write(`error: ${err?.message ?? err}\n`);
  process.exit(1);
});
