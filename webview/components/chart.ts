/** chart.js wrapper: only the parts the views draw (bars on a category axis), no animation. */
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

/** Reads a VS Code theme colour (CSS variable) for the chart, which draws on a canvas. */
export function themeColor(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

export interface BarChart {
  chart: Chart<'bar', number[], string>;
  update(labels: string[], values: number[], colors: string[]): void;
}

/** A bar chart whose bars report clicks by index. */
export function barChart(canvas: HTMLCanvasElement, onClick: (index: number) => void, yLabel: string): BarChart {
  const fg = themeColor('--vscode-foreground', '#ccc');
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
        y: { ticks: { color: fg }, title: { display: true, text: yLabel, color: fg } },
      },
    },
  });
  // Reachable from the element for the webview tests (bar values and positions), as Chart.getChart(canvas) is.
  Object.defineProperty(canvas, 'irwChart', { value: chart });
  return {
    chart,
    update(labels, values, colors) {
      chart.data.labels = labels;
      chart.data.datasets[0].data = values;
      chart.data.datasets[0].backgroundColor = colors;
      chart.update();
    },
  };
}
