/**
 * The subcommand table: one file per subcommand, each loaded only when it runs (a query does
 * not pay for the report renderers or the service clients at startup).
 */
import type { CommandDef } from 'citty';

type Lazy = () => Promise<CommandDef<any>>;

export const subCommands: Record<string, Lazy> = {
  query: () => import('./query.js').then((m) => m.queryCommand),
  analyze: () => import('./analyze.js').then((m) => m.analyzeCommand),
  summary: () => import('./summary.js').then((m) => m.summaryCommand),
  demo: () => import('./demo.js').then((m) => m.demoCommand),
  diff: () => import('./diff.js').then((m) => m.diffCommand),
  schema: () => import('./schema.js').then((m) => m.schemaCommand),
  sched: () => import('./sched.js').then((m) => m.schedCommand),
  device: () => import('./device.js').then((m) => m.deviceCommand),
  mcp: () => import('./mcp.js').then((m) => m.mcpCommand),
  completion: () => import('./completion.js').then((m) => m.completionCommand(() => subCommands, mainCommand)),
};

/** `heapql <dump> [report]`: the report command. */
export const mainCommand: Lazy = () => import('./report.js').then((m) => m.reportCommand);
