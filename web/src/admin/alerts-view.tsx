import { useState } from 'preact/hooks';
import { alertTypes } from '../../../shared/alerts/alert-event.ts';
import { describeAlertDetail, describeAlertSubject } from '../../../shared/alerts/describe-alert.ts';
import { formatDateTime, formatInteger } from '../format.ts';
import type { StoredAlertRow } from './admin-types.ts';
import { ErrorMessage, TableScroll } from './ui.tsx';
import { usePagedList } from './use-list.ts';
import type { ViewContext } from './view-context.ts';

export function AlertsView(context: ViewContext) {
  const [type, setType] = useState('');
  const list = usePagedList<StoredAlertRow>(context, '/alerts', 'alerts', { type });

  return (
    <section aria-labelledby="alerts-title">
      <div class="view-head">
        <h1 id="alerts-title">Alerts</h1>
      </div>
      <search class="list-filters">
        <div class="field">
          <label for="alerts-type">Type</label>
          <select id="alerts-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">Any alert</option>
            {alertTypes.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
      </search>
      <ErrorMessage error={list.error} />
      <TableScroll label="Alerts table">
        <table class="console-table alerts-table">
          <caption class="visually-hidden">Recent alerts, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Raised (UTC)</th>
              <th scope="col">Type</th>
              <th scope="col">About</th>
              <th scope="col">What</th>
              <th scope="col">Delivery</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map(({ event, delivery }) => (
              <tr key={event.id} data-type={event.type}>
                <td class="nowrap">{formatDateTime(event.at)}</td>
                <td>{event.type}</td>
                <td>{describeAlertSubject(event.subject)}</td>
                <td>{describeAlertDetail(event, formatInteger)}</td>
                <td>{delivery.state}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {!list.loading && list.items.length === 0 && !list.error ? <p class="empty-note">No alerts.</p> : null}
      {list.nextCursor ? (
        <button type="button" class="button-quiet" onClick={() => void list.loadMore()}>
          Load more
        </button>
      ) : null}
    </section>
  );
}
