import { useState } from 'preact/hooks';
import { formatDateTime } from '../format.ts';
import { adminPath, download } from './admin-client.ts';
import { type AuditEntry, auditActions } from './admin-types.ts';
import { ErrorMessage, TableScroll } from './ui.tsx';
import { usePagedList } from './use-list.ts';
import type { ViewContext } from './view-context.ts';

/** A record's fields as short text; values are rendered as text nodes like everything else from the store. */
function describeFields(record: Record<string, unknown> | null): string {
  if (!record) return '—';
  return Object.entries(record)
    .map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('; ');
}

export function AuditView(context: ViewContext) {
  const [actor, setActor] = useState('');
  // Typed text stays the field's own until Enter or leaving applies it (a list answering re-renders the filters).
  const [actorDraft, setActorDraft] = useState('');
  const [action, setAction] = useState('');
  const filters = { actor, action };
  const list = usePagedList<AuditEntry>(context, '/audit', 'entries', filters);
  const [error, setError] = useState<unknown>(null);

  return (
    <section aria-labelledby="audit-title">
      <div class="view-head">
        <h1 id="audit-title">Audit log</h1>
        <button
          type="button"
          class="button-quiet"
          onClick={() =>
            void download(context.signed.credential, adminPath('/audit.csv', filters), 'audit.csv').then(
              () => setError(null),
              setError,
            )
          }
        >
          Download CSV
        </button>
      </div>
      <search class="list-filters">
        <div class="field">
          <label for="audit-actor">Who (member id)</label>
          <input
            id="audit-actor"
            type="search"
            value={actorDraft}
            onInput={(e) => setActorDraft(e.currentTarget.value)}
            onChange={(e) => setActor(e.currentTarget.value.trim())}
          />
        </div>
        <div class="field">
          <label for="audit-action">What</label>
          <select id="audit-action" value={action} onChange={(e) => setAction(e.currentTarget.value)}>
            <option value="">Any change</option>
            {auditActions.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
      </search>
      <ErrorMessage error={list.error ?? error} />
      <TableScroll label="Audit log table">
        <table class="console-table audit-table">
          <caption class="visually-hidden">Administrative changes, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When (UTC)</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Target</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((entry) => (
              <tr key={entry.id} data-action={entry.action}>
                <td class="nowrap">{formatDateTime(entry.at)}</td>
                <td>
                  {entry.actor.memberId}
                  <small class="muted id-text">via {entry.actor.via}</small>
                </td>
                <td>{entry.action}</td>
                <td>
                  {entry.target.type} {entry.target.id}
                </td>
                <td class="fields-cell">{describeFields(entry.before)}</td>
                <td class="fields-cell">{describeFields(entry.after)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {!list.loading && list.items.length === 0 && !list.error ? <p class="empty-note">No changes match.</p> : null}
      {list.nextCursor ? (
        <button type="button" class="button-quiet" onClick={() => void list.loadMore()}>
          Load more
        </button>
      ) : null}
    </section>
  );
}
