/** chart.js wrapper: only the parts the views draw (bars on a category axis), no animation. */
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

const colors = new Map<string, string>();
let colorsOf = '';

/** Reads a VS Code theme colour (CSS variable) for the chart, which draws on a canvas. */
export function themeColor(name: string, fallback: string): string {
  // The theme is <body>'s class and the variables in its style attribute: read as attributes, unlike a computed
  // style, they do not make the browser lay out a page just changed (a redraw asks for six colours).
  const theme = `${document.body.className}\n${document.body.getAttribute('style') ?? ''}`;
  if (theme !== colorsOf) {
    colorsOf = theme;
    colors.clear();
  }
  let c = colors.get(name);
  if (c === undefined) colors.set(name, (c = getComputedStyle(document.body).getPropertyValue(name).trim()));
  return c || fallback;
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

/** What a bar chart can draw behind its bars (the Results panel's per-query Δ). */
export interface BarOverlay {
  /** Per bar, a range of its value (e.g. over the holes), drawn as a pale bar behind it. */
  ranges?: { lo: number[]; hi: number[] };
  /** A value across every bar (a mean) with its interval, drawn as a line over a pale band. */
  band?: { value: number; lo: number; hi: number };
}

export interface BarChart {
  chart: Chart<'bar', number[], string>;
  /** `selected`: index of the bar to mark (-1: none). */
  update(labels: string[], values: number[], colors: string[], selected?: number, overlay?: BarOverlay): void;
}

/** Draws a chart's overlay under its bars, in the theme's foreground (pale, so the bars read over it). */
function overlayPlugin(overlay: () => BarOverlay | undefined) {
  return {
    id: 'irwOverlay',
    beforeDatasetsDraw(chart: Chart) {
      const o = overlay();
      if (!o) return;
      const { ctx, chartArea: area, scales } = chart;
      const x = scales.x;
      const y = scales.y;
      const fg = themeColor('--vscode-foreground', '#ccc');
      ctx.save();
      ctx.beginPath();
      ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
      ctx.clip();
      ctx.fillStyle = fg;
      if (o.band) {
        ctx.globalAlpha = 0.14;
        ctx.fillRect(area.left, y.getPixelForValue(o.band.hi), area.right - area.left, y.getPixelForValue(o.band.lo) - y.getPixelForValue(o.band.hi));
      }
      if (o.ranges) {
        const n = o.ranges.lo.length;
        const w = Math.max(1, (area.right - area.left) / Math.max(1, n) - 1);
        ctx.globalAlpha = 0.3;
        for (let i = 0; i < n; i++) {
          const top = y.getPixelForValue(o.ranges.hi[i]);
          ctx.fillRect(x.getPixelForValue(i) - w / 2, top, w, Math.max(1, y.getPixelForValue(o.ranges.lo[i]) - top));
        }
      }
      ctx.restore();
    },
    afterDatasetsDraw(chart: Chart) {
      const band = overlay()?.band;
      if (!band) return;
      const { ctx, chartArea: area } = chart;
      const at = chart.scales.y.getPixelForValue(band.value);
      ctx.save();
      ctx.strokeStyle = themeColor('--vscode-foreground', '#ccc');
      ctx.lineWidth = 2;
      ctx.setLineDash([6, 3]);
      ctx.beginPath();
      ctx.moveTo(area.left, at);
      ctx.lineTo(area.right, at);
      ctx.stroke();
      ctx.restore();
    },
  };
}

/** How near the viewport a chart's canvas is drawn ahead of being scrolled to. */
const NEAR = '400px';

/**
 * Colours `chart` from the theme now and whenever it changes, and makes it reachable from its canvas for the
 * webview tests (values and positions), as Chart.getChart(canvas) is. Returns how to redraw it: now if its
 * canvas is near the viewport, else once it comes near. A chart out of view (the Results page's plots under
 * its table, a hidden one) is then not laid out and drawn again at each judgement, on the thread where every
 * view draws; its data are set at once all the same.
 */
function attach(canvas: HTMLCanvasElement, chart: Chart, theme: () => void): () => void {
  let near = true;
  let stale = false;
  // Near the page's own viewport: a webview is a cross-origin frame, where the top-level one ignores margins.
  new IntersectionObserver((entries) => {
    near = entries[entries.length - 1].isIntersecting;
    if (near && stale) {
      stale = false;
      chart.update();
    }
  }, { root: document, rootMargin: NEAR }).observe(canvas);
  const redraw = () => {
    if (near) chart.update();
    else stale = true;
  };
  theme();
  onThemeChange(() => {
    theme();
    redraw();
  });
  Object.defineProperty(canvas, 'irwChart', { value: chart });
  return redraw;
}

/**
 * A bar chart whose bars report clicks by index. `opts.overlay`: it may draw a BarOverlay behind its bars;
 * `opts.tooltip`: the tooltip's lines of a bar.
 */
export function barChart(canvas: HTMLCanvasElement, onClick: (index: number) => void, yLabel: string, opts: { overlay?: boolean; tooltip?: (index: number) => string[] } = {}): BarChart {
  let overlay: BarOverlay | undefined;
  const tooltip = opts.tooltip;
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
      plugins: { tooltip: { enabled: true, ...(tooltip ? { callbacks: { label: (c) => tooltip(c.dataIndex) } } : {}) } },
      scales: {
        x: { ticks: { display: false }, grid: { display: false } },
        y: { ticks: {}, title: { display: true, text: yLabel } },
      },
    },
    plugins: opts.overlay ? [overlayPlugin(() => overlay)] : [],
  });
  // What the overlay draws, for the webview tests (as irwChart is).
  if (opts.overlay) Object.defineProperty(canvas, 'irwOverlay', { get: () => overlay });
  const theme = () => {
    const fg = themeColor('--vscode-foreground', '#ccc');
    const y = chart.options.scales!.y!;
    y.ticks!.color = fg;
    (y as { title: { color?: string } }).title.color = fg;
    y.grid = { ...y.grid, color: themeColor('--vscode-editorWidget-border', 'rgba(128, 128, 128, 0.3)') };
  };
  const redraw = attach(canvas, chart, theme);
  const drawn = unchanged();
  return {
    chart,
    update(labels, values, colors, selected = -1, over) {
      // The selected bar takes the focus colour: an outline would not show on bars a pixel or two wide.
      const focus = themeColor('--vscode-focusBorder', '#007fd4');
      if (drawn([labels, values, colors, selected, focus, over ?? null])) return;
      overlay = over;
      // The axis takes in what the overlay draws beyond the bars.
      const y = chart.options.scales!.y! as { suggestedMin?: number; suggestedMax?: number };
      const ends = [...(over?.ranges?.lo ?? []), ...(over?.ranges?.hi ?? []), ...(over?.band ? [over.band.lo, over.band.hi] : [])];
      y.suggestedMin = ends.length ? Math.min(...ends) : undefined;
      y.suggestedMax = ends.length ? Math.max(...ends) : undefined;
      chart.data.labels = labels;
      const ds = chart.data.datasets[0];
      ds.data = values;
      ds.backgroundColor = selected >= 0 ? colors.map((c, i) => (i === selected ? focus : c)) : colors;
      redraw();
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
  const redraw = attach(canvas, chart, theme);
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
      redraw();
    },
  };
}
