#!/usr/bin/env node
// The installed command: everything lives in the compiled CLI.
// Colour only on a terminal (citty reads NO_COLOR when it loads).
if (!process.stdout.isTTY && process.env.NO_COLOR === undefined) process.env.NO_COLOR = '1';
import('../dist/cli/main.js').then((m) => m.main()).catch((err) => {
  process.stderr.write(`error: ${err?.message ?? err}\n`);
  process.exit(1);
});
