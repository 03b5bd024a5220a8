/** The report layer's public surface: the model and its schema, the renderers, config and output. */
export * from './model.js';
export { renderMarkdown } from './markdown.js';
export { renderHtml } from './html.js';
export { renderJson, reportJsonSchema, validateReportModel } from './json.js';
export { planQuery, vizWarnings, withVizWarnings, type QueryView, type ChartDatum } from './charts.js';
export { configOption, findConfigPath, loadCollectionConfig, parseCollectionConfig, type CollectionConfig, type ConfigLocation, type ConfigQuery } from './config.js';
export { chooseOutput, renderReport, writeOutput, writeReport, REPORT_FORMATS, type OutputChoice, type ReportFormat } from './output.js';
