import type { GradeLabels } from '../../src/protocol/webview.js';

/**
 * Settings the host puts in the page (src/extension/webview/page.ts, a JSON <meta>): read once, as the page is
 * built per panel. The grade labels are per dataset folder name, "*" for any other.
 */
function read(): { gradeLabels?: GradeLabels } {
  const meta = document.querySelector('meta[name="irw-settings"]');
  try {
    return meta ? (JSON.parse(meta.getAttribute('content') ?? '{}') as { gradeLabels?: GradeLabels }) : {};
  } catch {
    return {};
  }
}
const settings = read();

/** The label of `grade` on `dataset`'s scale ("relevant"), or '' when the setting names none. */
export function gradeLabel(dataset: string, grade: number): string {
  const labels = settings.gradeLabels?.[dataset] ?? settings.gradeLabels?.['*'];
  const l = labels?.[String(grade)];
  return typeof l === 'string' ? l : '';
}
