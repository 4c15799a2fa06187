import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { formatBucket, formatInteger, providerColor } from '../format.ts';
import type { UsageSummary } from '../usage-types.ts';

// Only the parts the bar charts use, so the bundle carries no unused chart types.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

type BarChart = Chart<'bar', number[], string>;

function stackedBars(canvas: HTMLCanvasElement, labels: string[], unit: string): BarChart {
  return new Chart(canvas, {
    type: 'bar',
    data: { labels, datasets: [] },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      // Redrawn on every filter change; an animation would only delay the figures.
      animation: false,
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: { stacked: true, grid: { display: false }, ticks: { maxRotation: 0, autoSkipPadding: 12 } },
        y: {
          stacked: true,
          beginAtZero: true,
          ticks: { precision: 0, callback: (value) => compact.format(Number(value)) },
        },
      },
      plugins: {
        legend: { position: 'bottom', labels: { boxWidth: 12, boxHeight: 12 } },
        tooltip: {
          callbacks: {
            label: (item) => `${item.dataset.label ?? ''}: ${formatInteger(Number(item.raw))} ${unit}`,
          },
        },
      },
    },
  });
}

/** Requests and tokens per hour or day, stacked by provider, drawn with Chart.js. */
export class UsageCharts {
  private charts: BarChart[] = [];

  constructor(
    private readonly requestsCanvas: HTMLCanvasElement,
    private readonly tokensCanvas: HTMLCanvasElement,
  ) {}

  render(summary: UsageSummary): void {
    this.destroy();
    const { series } = summary;
    const labels = series.buckets.map((bucket, index) => formatBucket(bucket, series.bucket, index === 0));
    const requests = stackedBars(this.requestsCanvas, labels, 'requests');
    const tokens = stackedBars(this.tokensCanvas, labels, 'tokens');
    for (const line of series.providers) {
      const color = providerColor(line.provider, summary.providers);
      const style = { backgroundColor: color, borderColor: color, borderWidth: 0, maxBarThickness: 28 };
      requests.data.datasets.push({ label: line.provider, data: line.requests, ...style });
      tokens.data.datasets.push({
        label: line.provider,
        data: line.inputTokens.map((input, index) => input + (line.outputTokens[index] ?? 0)),
        ...style,
      });
    }
    requests.update();
    tokens.update();
    this.charts = [requests, tokens];
  }

  destroy(): void {
    for (const chart of this.charts) chart.destroy();
    this.charts = [];
  }
}
