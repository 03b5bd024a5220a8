#!/usr/bin/env node
// The installed command: the compiled CLI, bundled into one script (npm run build:cli).
import('../dist/heapql-cli.js').then((m) => m.start()).catch((err) => {
  process.stderr.write(`error: ${err?.message ?? err}\n`);
  process.exit(1);
});
