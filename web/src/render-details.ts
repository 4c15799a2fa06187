import { element } from './dom.ts';
import { formatDateTime, formatDuration, formatInteger } from './format.ts';
import type { DetailRow, RequestsPage } from './usage-types.ts';

const headings = [
  'Time (UTC)',
  'Key',
  'Provider',
  'Model',
  'Status',
  'Input',
  'Cached',
  'Output',
  'Charge',
  'Source',
  'Duration',
  'State',
];

/** An unknown value is said to be unknown, never shown as 0 (spec §2.4). */
function tokens(value: number | null, running: boolean): HTMLElement {
  if (value !== null) return element('td', { className: 'number', text: formatInteger(value) });
  return element('td', { className: 'number unknown', text: running ? '…' : 'unknown' });
}

function row(request: DetailRow): HTMLTableRowElement {
  const running = request.state === 'running';
  return element('tr', { attributes: { 'data-request-id': request.id } }, [
    element('td', { text: formatDateTime(request.startedAt).replace(' UTC', '') }),
    element('td', { text: request.keyLabel }),
    element('td', { text: request.provider }),
    element('td', { text: request.model }),
    element('td', { className: 'number', text: request.status === null ? '—' : String(request.status) }),
    tokens(request.inputTokens, running),
    tokens(request.cachedInputTokens, running),
    tokens(request.outputTokens, running),
    element('td', {
      className: 'number',
      text: request.charge === null ? `${formatInteger(request.reserved)} reserved` : formatInteger(request.charge),
    }),
    element('td', { text: request.source ?? '—' }),
    element('td', {
      className: 'number nowrap',
      text: request.durationMs === null ? '—' : formatDuration(request.durationMs),
    }),
    element('td', {}, [element('span', { className: `state state-${request.state}`, text: request.state })]),
  ]);
}

export function renderDetails(table: HTMLTableElement, note: HTMLElement, page: RequestsPage): void {
  const head = element('thead', {}, [
    element(
      'tr',
      {},
      headings.map((heading) => element('th', { text: heading, attributes: { scope: 'col' } })),
    ),
  ]);
  const body = element('tbody');
  if (page.rows.length === 0) {
    body.append(
      element('tr', {}, [
        element('td', {
          className: 'empty-note',
          text: 'No requests match this period and these filters.',
          attributes: { colspan: String(headings.length) },
        }),
      ]),
    );
  } else {
    body.append(...page.rows.map(row));
  }
  table.replaceChildren(head, body);
  note.textContent = page.more
    ? `The newest ${formatInteger(page.limit)} matching requests. Older ones are in the CSV export (up to 1,000).`
    : `${formatInteger(page.rows.length)} matching ${page.rows.length === 1 ? 'request' : 'requests'}, newest first.`;
}
