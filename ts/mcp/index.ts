/** The MCP server front (see README, "MCP server for assistants"). */
export { createMcpServer, serveStdio } from './server.js';
export { McpContext, type McpLog, type McpOptions } from './context.js';
export { compareHistograms, type HistogramComparison, type ClassChange } from './histogram-compare.js';
