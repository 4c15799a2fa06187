import { formatInteger, formatReportedBy } from '../format.ts';
import type { ReportedFigure, UsageTotals } from '../usage-types.ts';

function Card(props: { name: string; title: string; value: string; detail: string; muted?: boolean }) {
  return (
    <article class={props.muted ? 'total total-muted' : 'total'} data-total={props.name}>
      <h3>{props.title}</h3>
      <p class="total-value">{props.value}</p>
      <p class="total-detail">{props.detail}</p>
    </article>
  );
}

function Reported(props: { name: string; title: string; figure: ReportedFigure; of: number; note?: string }) {
  return (
    <Card
      name={props.name}
      title={props.title}
      value={formatInteger(props.figure.value)}
      detail={`${formatReportedBy(props.figure.reportedBy, props.of)}${props.note ?? ''}`}
    />
  );
}

/** The totals row: every figure states how many requests reported it (spec §4.6 rule 5). */
export function Totals(props: { totals: UsageTotals }) {
  const { totals } = props;
  const split = [`${formatInteger(totals.completed)} completed`, `${formatInteger(totals.failed)} failed`];
  if (totals.running > 0) split.push(`${formatInteger(totals.running)} running`);
  return (
    <>
      <Card name="requests" title="Requests" value={formatInteger(totals.requests)} detail={split.join(' · ')} />
      <Reported name="inputTokens" title="Input tokens" figure={totals.inputTokens} of={totals.requests} />
      <Reported
        name="cachedInputTokens"
        title="Cached input tokens"
        figure={totals.cachedInputTokens}
        of={totals.requests}
        note=" · already in input"
      />
      <Reported name="outputTokens" title="Output tokens" figure={totals.outputTokens} of={totals.requests} />
      <Reported name="charge" title="Allowance charge" figure={totals.charge} of={totals.requests} />
      <Card
        name="estimatedCost"
        title="Estimated cost"
        value="Unavailable"
        detail={totals.estimatedCost.reason}
        muted
      />
    </>
  );
}

const titles = [
  'Requests',
  'Input tokens',
  'Cached input tokens',
  'Output tokens',
  'Allowance charge',
  'Estimated cost',
];

/** Placeholders of the same size while loading, so the page does not jump when the figures arrive. */
export function TotalsLoading() {
  return (
    <>
      {titles.map((title) => (
        <article key={title} class="total is-loading" aria-hidden="true">
          <h3>{title}</h3>
          <p class="total-value skeleton">{'\u00a0'}</p>
          <p class="total-detail skeleton">{'\u00a0'}</p>
        </article>
      ))}
    </>
  );
}
