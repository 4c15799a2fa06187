import { formatDateTime, formatDuration, formatInteger } from '../format.ts';
import type { DetailRow, RequestsPage } from '../usage-types.ts';

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
function Tokens(props: { value: number | null; running: boolean }) {
  if (props.value !== null) return <td class="number">{formatInteger(props.value)}</td>;
  return <td class="number unknown">{props.running ? '…' : 'unknown'}</td>;
}

function Row(props: { request: DetailRow }) {
  const { request } = props;
  const running = request.state === 'running';
  return (
    <tr data-request-id={request.id}>
      <td>{formatDateTime(request.startedAt).replace(' UTC', '')}</td>
      <td>{request.keyLabel}</td>
      <td>{request.provider}</td>
      <td>{request.model}</td>
      <td class="number">{request.status === null ? '—' : String(request.status)}</td>
      <Tokens value={request.inputTokens} running={running} />
      <Tokens value={request.cachedInputTokens} running={running} />
      <Tokens value={request.outputTokens} running={running} />
      <td class="number">
        {request.charge === null ? `${formatInteger(request.reserved)} reserved` : formatInteger(request.charge)}
      </td>
      <td>{request.source ?? '—'}</td>
      <td class="number nowrap">{request.durationMs === null ? '—' : formatDuration(request.durationMs)}</td>
      <td>
        <span class={`state state-${request.state}`}>{request.state}</span>
      </td>
    </tr>
  );
}

export function Details(props: { page: RequestsPage }) {
  const { page } = props;
  const note = page.more
    ? `The newest ${formatInteger(page.limit)} matching requests. Older ones are in the CSV export (up to 1,000).`
    : `${formatInteger(page.rows.length)} matching ${page.rows.length === 1 ? 'request' : 'requests'}, newest first.`;
  return (
    <section class="card details" aria-labelledby="details-title">
      <div class="details-head">
        <h2 id="details-title">Newest requests</h2>
        <p id="details-note" class="muted">
          {note}
        </p>
      </div>
      <div class="table-scroll">
        <table id="details-table" class="details-table">
          <thead>
            <tr>
              {headings.map((heading) => (
                <th key={heading} scope="col">
                  {heading}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {page.rows.length === 0 ? (
              <tr>
                <td class="empty-note" colSpan={headings.length}>
                  No requests match this period and these filters.
                </td>
              </tr>
            ) : (
              page.rows.map((request) => <Row key={request.id} request={request} />)
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
