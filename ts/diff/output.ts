/** The diff in one of the report's formats (chosen like the report: extension, --format, stdout = Markdown). */
import type { ReportFormat } from '../report/output.js';
import { renderDiffHtml } from './html.js';
import { renderDiffJson } from './json.js';
import { renderDiffMarkdown } from './markdown.js';
import type { DiffModel } from './model.js';

export function renderDiff(model: DiffModel, format: ReportFormat): string {
  switch (format) {
    case 'md':
      return renderDiffMarkdown(model);
    case 'html':
      return renderDiffHtml(model);
    case 'json':
      return renderDiffJson(model);
  }
}
