/** The subcommand table: one file per subcommand. */
import type { CommandDef } from 'citty';

import { demoCommand } from './demo.js';
import { schemaCommand } from './schema.js';
import { mainCommand } from './summary.js';

export { mainCommand };

export const subCommands: Record<string, CommandDef<any>> = {
  demo: demoCommand,
  schema: schemaCommand,
};
