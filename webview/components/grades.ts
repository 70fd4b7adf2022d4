import { h } from './dom.js';
import { gradeLabel } from './settings.js';

/** "1 relevant" with the dataset's label from the setting, else just the grade. */
export function gradeText(dataset: string, grade: number): string {
  const label = gradeLabel(dataset, grade);
  return label ? `${grade} ${label}` : String(grade);
}

/** Classes that tell grades apart at a glance: 0 plain, 1 outlined, 2 and up filled. */
export function gradeClass(grade: number | null): string {
  return grade === null ? 'hole' : grade <= 0 ? 'g0' : grade === 1 ? 'rel g1' : 'rel g2';
}

/**
 * A judgement shown as a small button: the grade, or "?" for a hole (unjudged). Clicking it offers the
 * dataset's grades with their labels; picking one calls `onPick` (inline qrels editing).
 */
export function gradeButton(grade: number | null, scale: number[], onPick: (grade: number) => void, dataset: string): HTMLElement {
  const label = grade === null ? '?' : String(grade);
  const b = h('button', {
    className: `grade ${gradeClass(grade)}`,
    title: grade === null ? 'Unjudged (a hole): click to judge' : `Grade ${gradeText(dataset, grade)}: click to change`,
    attrs: { 'data-grade': grade === null ? 'hole' : String(grade) },
  }, label);
  b.addEventListener('click', (e) => {
    e.stopPropagation();
    const picker = h('span', { className: 'grade-picker' },
      ...scale.map((g) => h('button', { className: `grade ${gradeClass(g)}`, title: gradeText(dataset, g), attrs: { 'data-pick': String(g) }, on: { click: (ev) => { ev.stopPropagation(); onPick(g); } } }, gradeText(dataset, g))));
    b.replaceWith(picker);
  });
  return b;
}
