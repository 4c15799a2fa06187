import { element } from './dom.ts';
import { formatInteger, formatReportedBy } from './format.ts';
import type { ReportedFigure, UsageTotals } from './usage-types.ts';

function card(name: string, title: string, value: string, detail: string, className = 'total'): HTMLElement {
  return element('article', { className, attributes: { 'data-total': name } }, [
    element('h3', { text: title }),
    element('p', { className: 'total-value', text: value }),
    element('p', { className: 'total-detail', text: detail }),
  ]);
}

function reportedCard(name: string, title: string, figure: ReportedFigure, of: number, note = ''): HTMLElement {
  const detail = `${formatReportedBy(figure.reportedBy, of)}${note}`;
  return card(name, title, formatInteger(figure.value), detail);
}

/** The totals row: every figure states how many requests reported it (spec §4.6 rule 5). */
export function renderTotals(container: HTMLElement, totals: UsageTotals): void {
  const split = [`${formatInteger(totals.completed)} completed`, `${formatInteger(totals.failed)} failed`];
  if (totals.running > 0) split.push(`${formatInteger(totals.running)} running`);
  container.replaceChildren(
    card('requests', 'Requests', formatInteger(totals.requests), split.join(' · ')),
    reportedCard('inputTokens', 'Input tokens', totals.inputTokens, totals.requests),
    reportedCard(
      'cachedInputTokens',
      'Cached input tokens',
      totals.cachedInputTokens,
      totals.requests,
      ' · already in input',
    ),
    reportedCard('outputTokens', 'Output tokens', totals.outputTokens, totals.requests),
    reportedCard('charge', 'Allowance charge', totals.charge, totals.requests),
    card('estimatedCost', 'Estimated cost', 'Unavailable', totals.estimatedCost.reason, 'total total-muted'),
  );
}

/** Placeholders of the same size while loading, so the page does not jump when the figures arrive. */
export function renderTotalsLoading(container: HTMLElement): void {
  const titles = [
    'Requests',
    'Input tokens',
    'Cached input tokens',
    'Output tokens',
    'Allowance charge',
    'Estimated cost',
  ];
  container.replaceChildren(
    ...titles.map((title) =>
      element('article', { className: 'total is-loading', attributes: { 'aria-hidden': 'true' } }, [
        element('h3', { text: title }),
        element('p', { className: 'total-value skeleton', text: '\u00a0' }),
        element('p', { className: 'total-detail skeleton', text: '\u00a0' }),
      ]),
    ),
  );
}
