/**
 * Table behaviour shared by the panels: headers that sort by click (as VS Code's own tables and ranx reports
 * do) and cells that copy on their own (click a cell, then Copy), both on plain <table> markup. A cell's
 * `data-value` is what it sorts by and copies (the shown figure, without markers); else its text. Sorting
 * reads the rows from the table when clicked, so a table updated in place (morph) sorts what it shows.
 */

type Sort = { col: number; dir: 1 | -1 };
/** Per table id, so a re-render (a new model) keeps the user's order. */
const sorts = new Map<string, Sort>();

const cellValue = (td: Element | undefined) => (td as HTMLElement | undefined)?.dataset.value ?? td?.textContent ?? '';

function compare(a: string, b: string): number {
  const x = Number(a);
  const y = Number(b);
  if (a !== '' && b !== '' && Number.isFinite(x) && Number.isFinite(y)) return x - y;
  return a.localeCompare(b);
}

/** Orders the body's rows by the table's sort, or by their original order (data-order) without one. */
function apply(table: HTMLTableElement): void {
  const s = sorts.get(table.id);
  const rows = [...table.tBodies[0].rows];
  const original = (r: HTMLTableRowElement) => Number(r.dataset.order ?? 0);
  const order = s ? rows.sort((r1, r2) => s.dir * compare(cellValue(r1.cells[s.col]), cellValue(r2.cells[s.col])) || original(r1) - original(r2)) : rows.sort((r1, r2) => original(r1) - original(r2));
  // Only rows out of place move: a row that stays keeps its place in the page (and the focus in it).
  order.forEach((r, i) => {
    if (table.tBodies[0].rows[i] !== r) table.tBodies[0].insertBefore(r, table.tBodies[0].rows[i] ?? null);
  });
  table.querySelectorAll('thead th').forEach((th, i) => {
    if (th.classList.contains('sortable')) th.setAttribute('aria-sort', s?.col === i ? (s.dir === 1 ? 'ascending' : 'descending') : 'none');
  });
}

/**
 * Makes the header cells of `table` (which needs an id) sort its body: the first click on a number column
 * sorts descending, a text column ascending; the next click reverses; the third restores the original order.
 * Columns in `skip` (e.g. a column of buttons) do not sort.
 */
export function sortable(table: HTMLTableElement, skip: number[] = []): HTMLTableElement {
  [...table.tBodies[0].rows].forEach((r, i) => (r.dataset.order = String(i)));
  table.querySelectorAll<HTMLTableCellElement>('thead th').forEach((th, col) => {
    if (skip.includes(col)) return;
    th.classList.add('sortable');
    th.setAttribute('tabindex', '0');
    const click = () => {
      const rows = [...table.tBodies[0].rows];
      const s = sorts.get(table.id);
      const numeric = rows.length > 0 && Number.isFinite(Number(cellValue(rows[0].cells[col]))) && cellValue(rows[0].cells[col]) !== '';
      const first: 1 | -1 = numeric ? -1 : 1;
      if (s?.col !== col) sorts.set(table.id, { col, dir: first });
      else if (s.dir === first) sorts.set(table.id, { col, dir: -first as 1 | -1 });
      else sorts.delete(table.id);
      apply(table);
      onSort?.(table.id, sorts.get(table.id));
    };
    th.addEventListener('click', click);
    th.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        click();
      }
    });
  });
  apply(table);
  return table;
}

let onSort: ((table: string, sort: Sort | undefined) => void) | undefined;

/** The sorts of every table, to keep across a reload of the panel (the view's state), and back. */
export function tableSorts(): Record<string, Sort> {
  return Object.fromEntries(sorts);
}

export function restoreSorts(saved: unknown, changed: (table: string, sort: Sort | undefined) => void): void {
  if (saved && typeof saved === 'object') {
    for (const [id, s] of Object.entries(saved as Record<string, Sort>)) {
      if (s && Number.isInteger(s.col) && (s.dir === 1 || s.dir === -1)) sorts.set(id, { col: s.col, dir: s.dir });
    }
  }
  onSort = changed;
}

/** With a cell focused (clicked) and no text selected, Copy puts that cell's value on the clipboard. */
document.addEventListener('mousedown', (e) => {
  const td = (e.target as Element | null)?.closest?.('td');
  if (td && !td.hasAttribute('tabindex')) td.setAttribute('tabindex', '-1');
});
document.addEventListener('copy', (e) => {
  const sel = document.getSelection();
  if (sel && !sel.isCollapsed) return;
  const td = document.activeElement?.closest('td');
  if (!td || !e.clipboardData) return;
  e.clipboardData.setData('text/plain', cellValue(td).trim());
  e.preventDefault();
});
