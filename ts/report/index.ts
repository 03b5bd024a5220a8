/** The report layer's public surface: the model and its schema, the renderers, config and output. */
export * from './model.js';
export { renderMarkdown, renderWasteMarkdown } from './markdown.js';
export { renderHtml, renderWasteHtml } from './html.js';
export { renderJson, renderWasteJson, reportJsonSchema, validateReportModel, validateWasteModel, wasteJsonSchema } from './json.js';
export { planQuery, vizWarnings, withVizWarnings, type QueryView, type ChartDatum } from './charts.js';
export { configOption, findConfigPath, loadCollectionConfig, parseCollectionConfig, type CollectionConfig, type ConfigLocation, type ConfigQuery } from './config.js';
export { checkOutputWritable, chooseOutput, renderReport, renderWaste, writeOutput, writeReport, writeWaste, REPORT_FORMATS, REPORT_OUTPUT, WASTE_OUTPUT, type OutputChoice, type OutputName, type ReportFormat } from './output.js';
