/** The subcommand table: one file per subcommand. */
import type { CommandDef } from 'citty';

import { analyzeCommand } from './analyze.js';
import { demoCommand } from './demo.js';
import { deviceCommand } from './device.js';
import { schemaCommand } from './schema.js';
import { schedCommand } from './sched.js';
import { queryCommand } from './query.js';
import { reportCommand as mainCommand } from './report.js';
import { summaryCommand } from './summary.js';

export { mainCommand };

export const subCommands: Record<string, CommandDef<any>> = {
  query: queryCommand,
  analyze: analyzeCommand,
  summary: summaryCommand,
  demo: demoCommand,
  schema: schemaCommand,
  sched: schedCommand,
  device: deviceCommand,
};
