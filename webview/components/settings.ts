import type { GradeLabels, PanelIdentity } from '../../src/protocol/webview.js';

/**
 * Settings the host puts in the page (src/extension/webview/page.ts, a JSON <meta>): read once, as the page is
 * built per panel. The grade labels are per dataset folder name, "*" for any other.
 */
function read(): { gradeLabels?: GradeLabels; panel?: PanelIdentity } {
  const meta = document.querySelector('meta[name="irw-settings"]');
  try {
    return meta ? (JSON.parse(meta.getAttribute('content') ?? '{}') as { gradeLabels?: GradeLabels; panel?: PanelIdentity }) : {};
  } catch {
    return {};
  }
}
const settings = read();

/** What the panel is of (the host's), to keep in the view state for a reload; undefined in the sidebar. */
export const panelIdentity: PanelIdentity | undefined = settings.panel;

/** The label of `grade` on `dataset`'s scale ("relevant"), or '' when the setting names none. */
export function gradeLabel(dataset: string, grade: number): string {
  const labels = settings.gradeLabels?.[dataset] ?? settings.gradeLabels?.['*'];
  const l = labels?.[String(grade)];
  return typeof l === 'string' ? l : '';
}
