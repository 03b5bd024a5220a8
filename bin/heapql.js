#!/usr/bin/env node
// The installed command: the compiled CLI, bundled into one script (npm run build:cli).
import('../dist/heapql-cli.js').then((m) => m.start()).catch((err) => {
  // A checkout whose build has not run (or ran tsc alone) has no bundle: say what to do.
  const unbuilt = err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('heapql-cli');
  process.stderr.write(`error: ${unbuilt ? 'heapql is not built (dist/heapql-cli.js is missing): run npm run build' : (err?.message ?? err)}\n`);
  process.exit(1);
});
