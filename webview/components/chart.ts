/** chart.js wrapper: only the parts the views draw (bars on a category axis), no animation. */
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

/** Reads a VS Code theme colour (CSS variable) for the chart, which draws on a canvas. */
export function themeColor(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

/**
 * Calls `f` after VS Code switches the theme: it sets the theme's kind as a class on <body> and rewrites the
 * CSS variables in its style attribute.
 */
export function onThemeChange(f: () => void): void {
  new MutationObserver(f).observe(document.body, { attributes: true, attributeFilter: ['class', 'style', 'data-vscode-theme-id'] });
}

/**
 * Whether a chart's update is of what it already shows: most judgements move no bar, and chart.js lays out and
 * draws every bar on each update (a theme switch redraws on its own, attach()).
 */
function unchanged(): (data: unknown) => boolean {
  let last = '';
  return (data) => {
    const key = JSON.stringify(data);
    if (key === last) return true;
    last = key;
    return false;
  };
}

export interface BarChart {
  chart: Chart<'bar', number[], string>;
  /** `selected`: index of the bar to mark (-1: none). */
  update(labels: string[], values: number[], colors: string[], selected?: number): void;
}

/**
 * Colours `chart` from the theme now and whenever it changes, and makes it reachable from its canvas for the
 * webview tests (values and positions), as Chart.getChart(canvas) is.
 */
function attach(canvas: HTMLCanvasElement, chart: Chart, theme: () => void): void {
  theme();
  onThemeChange(() => {
    theme();
    chart.update();
  });
  Object.defineProperty(canvas, 'irwChart', { value: chart });
}

/** A bar chart whose bars report clicks by index. */
export function barChart(canvas: HTMLCanvasElement, onClick: (index: number) => void, yLabel: string): BarChart {
  const chart = new Chart<'bar', number[], string>(canvas, {
    type: 'bar',
    data: { labels: [], datasets: [{ data: [], backgroundColor: [], barPercentage: 1, categoryPercentage: 1, label: yLabel }] },
    options: {
      animation: false,
      // Labels are unique and data one value per label: lets chart.js skip its parsing checks (10k bars).
      normalized: true,
      responsive: true,
      maintainAspectRatio: false,
      onClick: (_e, elements) => {
        if (elements.length > 0) onClick(elements[0].index);
      },
      plugins: { tooltip: { enabled: true } },
      scales: {
        x: { ticks: { display: false }, grid: { display: false } },
        y: { ticks: {}, title: { display: true, text: yLabel } },
      },
    },
  });
  const theme = () => {
    const fg = themeColor('--vscode-foreground', '#ccc');
    const y = chart.options.scales!.y!;
    y.ticks!.color = fg;
    (y as { title: { color?: string } }).title.color = fg;
    y.grid = { ...y.grid, color: themeColor('--vscode-editorWidget-border', 'rgba(128, 128, 128, 0.3)') };
  };
  attach(canvas, chart, theme);
  const drawn = unchanged();
  return {
    chart,
    update(labels, values, colors, selected = -1) {
      // The selected bar takes the focus colour: an outline would not show on bars a pixel or two wide.
      const focus = themeColor('--vscode-focusBorder', '#007fd4');
      if (drawn([labels, values, colors, selected, focus])) return;
      chart.data.labels = labels;
      const ds = chart.data.datasets[0];
      ds.data = values;
      ds.backgroundColor = selected >= 0 ? colors.map((c, i) => (i === selected ? focus : c)) : colors;
      chart.update();
    },
  };
}

export interface IntervalChart {
  chart: Chart<'bar', [number, number][], string>;
  /** One row per label: the estimate and its interval, coloured; `axis`: what the values are. */
  update(labels: string[], rows: { value: number; lo: number; hi: number; color: string }[], axis: string): void;
}

/**
 * Estimates with intervals, one row each (a forest plot): a floating bar from lo to hi and a narrow one at the
 * estimate, on a value axis with its zero line. Bars, so no other chart.js controller is needed.
 */
export function intervalChart(canvas: HTMLCanvasElement): IntervalChart {
  const chart = new Chart<'bar', [number, number][], string>(canvas, {
    type: 'bar',
    data: { labels: [], datasets: [{ data: [], label: 'interval' }, { data: [], label: 'estimate' }] },
    options: {
      animation: false,
      indexAxis: 'y',
      responsive: true,
      maintainAspectRatio: false,
      datasets: { bar: { grouped: false } },
      plugins: {
        tooltip: {
          enabled: true,
          callbacks: {
            label: (c) => {
              const [lo, hi] = c.raw as [number, number];
              return c.datasetIndex === 0 ? `95 % interval [${lo.toFixed(4)}, ${hi.toFixed(4)}]` : `Δ ${((lo + hi) / 2).toFixed(4)}`;
            },
          },
        },
      },
      scales: { x: { title: { display: true, text: '' } }, y: { ticks: { autoSkip: false } } },
    },
  });
  const theme = () => {
    const fg = themeColor('--vscode-foreground', '#ccc');
    const border = themeColor('--vscode-editorWidget-border', 'rgba(128, 128, 128, 0.3)');
    const x = chart.options.scales!.x!;
    const y = chart.options.scales!.y!;
    x.ticks = { ...x.ticks, color: fg };
    y.ticks = { ...y.ticks, color: fg };
    (x as { title: { color?: string } }).title.color = fg;
    // The zero line stands out: it is what "better" and "worse" are read against.
    x.grid = { ...x.grid, color: (ctx: { tick?: { value: number } }) => (ctx.tick?.value === 0 ? fg : border) } as typeof x.grid;
    y.grid = { ...y.grid, color: border };
  };
  attach(canvas, chart, theme);
  const drawn = unchanged();
  return {
    chart,
    update(labels, rows, axis) {
      if (drawn([labels, rows, axis])) return;
      const span = Math.max(1e-9, ...rows.map((r) => r.hi - r.lo)) / 150;
      chart.data.labels = labels;
      const [ci, est] = chart.data.datasets;
      ci.data = rows.map((r) => [r.lo, r.hi]);
      ci.backgroundColor = 'transparent';
      ci.borderColor = rows.map((r) => r.color);
      ci.borderWidth = 2;
      est.data = rows.map((r) => [r.value - span, r.value + span]);
      est.backgroundColor = rows.map((r) => r.color);
      (chart.options.scales!.x as { title: { text: string } }).title.text = axis;
      chart.update();
    },
  };
}
