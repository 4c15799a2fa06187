import { useEffect, useRef } from 'preact/hooks';
import type { UsageSummary } from '../usage-types.ts';
import type { UsageCharts } from './render-charts.ts';

/**
 * Requests and tokens by provider. Chart.js is a chunk of its own, imported when the charts are first drawn, so
 * the sign-in screen and the console never load it.
 */
export function ChartsPanel(props: { summary: UsageSummary }) {
  const requestsCanvas = useRef<HTMLCanvasElement>(null);
  const tokensCanvas = useRef<HTMLCanvasElement>(null);
  const charts = useRef<UsageCharts | null>(null);
  const { totals } = props.summary;
  const noRequests = totals.requests === 0;
  const noTokens = totals.inputTokens.value + totals.outputTokens.value === 0;

  useEffect(() => {
    let current = true;
    void import('./render-charts.ts').then(({ UsageCharts }) => {
      if (!current || !requestsCanvas.current || !tokensCanvas.current) return;
      charts.current ??= new UsageCharts(requestsCanvas.current, tokensCanvas.current);
      charts.current.render(props.summary);
    });
    return () => {
      current = false;
    };
  }, [props.summary]);
  useEffect(() => () => charts.current?.destroy(), []);

  return (
    <section class="charts" aria-label="Charts">
      <figure class="card chart-card">
        <figcaption id="requests-chart-title">Requests by provider</figcaption>
        <div class="chart-box">
          <canvas id="requests-chart" ref={requestsCanvas} aria-labelledby="requests-chart-title" />
        </div>
        <p id="requests-chart-empty" class="chart-empty" hidden={!noRequests}>
          No requests in this period.
        </p>
      </figure>
      <figure class="card chart-card">
        <figcaption id="tokens-chart-title">Tokens (input + output) by provider</figcaption>
        <div class="chart-box">
          <canvas id="tokens-chart" ref={tokensCanvas} aria-labelledby="tokens-chart-title" />
        </div>
        <p id="tokens-chart-empty" class="chart-empty" hidden={!noTokens}>
          No tokens reported in this period.
        </p>
      </figure>
    </section>
  );
}
