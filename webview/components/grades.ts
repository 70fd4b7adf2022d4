import { h } from './dom.js';

/**
 * A judgement shown as a small button: the grade, or "?" for a hole (unjudged). Clicking it offers the
 * dataset's grades; picking one calls `onPick` (inline qrels editing).
 */
export function gradeButton(grade: number | null, scale: number[], onPick: (grade: number) => void): HTMLElement {
  const label = grade === null ? '?' : String(grade);
  const b = h('button', {
    className: `grade${grade === null ? ' hole' : grade > 0 ? ' rel' : ''}`,
    title: grade === null ? 'Unjudged (a hole): click to judge' : `Grade ${grade}: click to change`,
    attrs: { 'data-grade': grade === null ? 'hole' : String(grade) },
  }, label);
  b.addEventListener('click', (e) => {
    e.stopPropagation();
    const picker = h('span', { className: 'grade-picker' },
      ...scale.map((g) => h('button', { className: 'grade', attrs: { 'data-pick': String(g) }, on: { click: (ev) => { ev.stopPropagation(); onPick(g); } } }, String(g))));
    b.replaceWith(picker);
  });
  return b;
}
