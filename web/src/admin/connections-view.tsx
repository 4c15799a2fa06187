import { useState } from 'preact/hooks';
import { createConnectionBody } from '../../../shared/admin/admin-schemas.ts';
import { connectionWires } from '../../../shared/wires/wire-names.ts';
import { formatDuration, formatInteger } from '../format.ts';
import { adminPath, callJson, GatewayError } from './admin-client.ts';
import type { ConnectionRow, ConnectionTestReport } from './admin-types.ts';
import { ListFilters } from './members-view.tsx';
import {
  ConfirmButton,
  ConflictNotice,
  Dialog,
  describeProblem,
  ErrorMessage,
  Field,
  StateBadge,
  TableScroll,
} from './ui.tsx';
import { usePagedList } from './use-list.ts';
import type { ViewContext } from './view-context.ts';

const splitList = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

export function ConnectionsView(context: ViewContext) {
  const [name, setName] = useState('');
  const [state, setState] = useState('');
  const list = usePagedList<ConnectionRow>(context, '/connections', 'connections', { name, state });
  const [editing, setEditing] = useState<ConnectionRow | 'new' | null>(null);
  const [report, setReport] = useState<ConnectionTestReport | null>(null);
  const [error, setError] = useState<unknown>(null);
  const credential = context.signed.credential;

  const setEnabled = async (connection: ConnectionRow, enabled: boolean) => {
    await callJson(
      credential,
      adminPath(`/connections/${encodeURIComponent(connection.id)}/${enabled ? 'enable' : 'disable'}`),
      {
        method: 'POST',
      },
    );
    await list.reload();
  };
  const test = async (connection: ConnectionRow) => {
    setError(null);
    try {
      const body = connection.models.length > 0 ? { generate: true } : {};
      setReport(
        await callJson<ConnectionTestReport>(
          credential,
          adminPath(`/connections/${encodeURIComponent(connection.id)}/test`),
          {
            method: 'POST',
            body,
          },
        ),
      );
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="connections-title">
      <div class="view-head">
        <h1 id="connections-title">Connections</h1>
        <button type="button" class="button-primary" onClick={() => setEditing('new')}>
          Create connection
        </button>
      </div>
      <ListFilters name={name} onName={setName} state={state} onState={setState} states={['enabled', 'disabled']} />
      <ErrorMessage error={list.error ?? error} />
      {report ? <TestReport report={report} onClose={() => setReport(null)} /> : null}
      <TableScroll label="Connections table">
        <table class="console-table">
          <caption class="visually-hidden">Connections</caption>
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Wire</th>
              <th scope="col">Base URL</th>
              <th scope="col">Upstream</th>
              <th scope="col" class="number">
                Models
              </th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((connection) => (
              <tr key={connection.id} data-connection-id={connection.id}>
                <th scope="row" class="name-cell">
                  {connection.provider}
                  <small class="muted id-text">{connection.id}</small>
                </th>
                <td>
                  {connection.wire}
                  {connection.region ? <small class="muted id-text">{connection.region}</small> : null}
                </td>
                <td class="url-cell">{connection.baseUrl}</td>
                <td>{connection.upstream}</td>
                <td class="number" title={connection.models.join(', ')}>
                  {connection.models.length === 0 ? 'All' : formatInteger(connection.models.length)}
                </td>
                <td>
                  <StateBadge state={connection.enabled ? 'enabled' : 'disabled'} />
                </td>
                <td class="actions">
                  <button type="button" class="button-quiet" onClick={() => void test(connection)}>
                    Test connection
                  </button>
                  <button type="button" class="button-quiet" onClick={() => setEditing(connection)}>
                    Edit
                  </button>
                  {connection.enabled ? (
                    <ConfirmButton
                      label="Disable"
                      question={`Disable ${connection.provider} (${connection.id})? Requests stop going to it.`}
                      action={() => setEnabled(connection, false)}
                    />
                  ) : (
                    <button type="button" class="button-quiet" onClick={() => void setEnabled(connection, true)}>
                      Enable
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {!list.loading && list.items.length === 0 ? <p class="empty-note">No connections match.</p> : null}
      {list.nextCursor ? (
        <button type="button" class="button-quiet" onClick={() => void list.loadMore()}>
          Load more
        </button>
      ) : null}
      {editing ? (
        <ConnectionForm
          context={context}
          connection={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void list.reload();
          }}
        />
      ) : null}
    </section>
  );
}

/** What `connection test` prints, as a region: each call's outcome, status, latency and models. */
function TestReport(props: { report: ConnectionTestReport; onClose: () => void }) {
  const { report } = props;
  return (
    <section
      class={`card test-report ${report.ok ? 'report-ok' : 'report-failed'}`}
      aria-labelledby="test-report-title"
      role="status"
    >
      <h2 id="test-report-title">
        Test of {report.connection.provider} ({report.connection.id}): {report.ok ? 'passed' : 'failed'}
      </h2>
      <ul>
        {report.probes.map((probe) => (
          <li key={`${probe.call}-${probe.url}`}>
            <strong>
              {probe.call === 'model-list' ? 'Model list' : `Generation${probe.model ? ` with ${probe.model}` : ''}`}
            </strong>
            {': '}
            {probe.ok ? 'ok' : 'failed'} · status {probe.status ?? 'none'} · {formatDuration(probe.latencyMs)}
            {probe.models
              ? ` · ${formatInteger(probe.models.count)} models listed${probe.models.more ? ' (more pages)' : ''}`
              : ''}
            {probe.failure ? ` · ${probe.failure.code}: ${probe.failure.reason}` : ''}
            <div class="muted url-cell">
              {probe.method} {probe.url}
            </div>
          </li>
        ))}
      </ul>
      {report.notListedUpstream && report.notListedUpstream.length > 0 ? (
        <p>Served here but not in the upstream's list: {report.notListedUpstream.join(', ')}</p>
      ) : null}
      <button type="button" class="button-quiet" onClick={props.onClose}>
        Close report
      </button>
    </section>
  );
}

/**
 * Create or edit a connection. The credential field is a password field that starts empty, is cleared once sent,
 * and is never filled from the gateway: the API never returns a credential.
 */
function ConnectionForm(props: {
  context: ViewContext;
  connection: ConnectionRow | null;
  onClose: () => void;
  onSaved: () => void;
}) {
  const [record, setRecord] = useState(props.connection);
  const [provider, setProvider] = useState(props.connection?.provider ?? '');
  const [wire, setWire] = useState<string>(props.connection?.wire ?? 'openai-chat');
  const [baseUrl, setBaseUrl] = useState(props.connection?.baseUrl ?? '');
  const [upstream, setUpstream] = useState(props.connection?.upstream ?? 'lb');
  const [models, setModels] = useState((props.connection?.models ?? []).join(', '));
  const [privateNetwork, setPrivateNetwork] = useState(props.connection?.privateNetwork ?? false);
  const [region, setRegion] = useState(props.connection?.region ?? '');
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [conflict, setConflict] = useState<ConnectionRow | null>(null);
  const credential = props.context.signed.credential;
  // Bedrock signs with the host's AWS identity: a region instead of a credential, the base URL defaulting to the
  // region's runtime endpoint, and a Bedrock API key only for accounts that use them (docs/bedrock.md).
  const bedrock = wire === 'bedrock';

  const save = async () => {
    // An edit may leave the credential blank (keep the stored one): it is then left out, as a Bedrock connection's
    // may be at creation; any other new connection sends what was typed, and an empty one is refused by the schema.
    const parsed = createConnectionBody.safeParse({
      provider,
      wire,
      ...(baseUrl.trim() === '' && bedrock ? {} : { baseUrl: baseUrl.trim() }),
      ...(bedrock && !record ? { region: region.trim() } : {}),
      upstream,
      models: splitList(models),
      privateNetwork,
      ...(apiKey === '' && (record || bedrock) ? {} : { apiKey }),
    });
    if (!parsed.success) return setError(new Error(describeProblem(parsed.error.issues)));
    try {
      if (record) {
        await callJson(credential, adminPath(`/connections/${encodeURIComponent(record.id)}/update`), {
          method: 'POST',
          body: {
            version: record.version,
            models: parsed.data.models,
            baseUrl: parsed.data.baseUrl,
            ...(apiKey === '' ? {} : { apiKey }),
          },
        });
      } else {
        await callJson(credential, adminPath('/connections'), { method: 'POST', body: parsed.data });
      }
      setApiKey('');
      props.onSaved();
    } catch (failure) {
      setApiKey('');
      if (failure instanceof GatewayError && failure.code === 'version_conflict') {
        setConflict((failure.current as ConnectionRow | undefined) ?? null);
      }
      setError(failure);
    }
  };

  return (
    <Dialog title={record ? `Edit ${record.provider} (${record.id})` : 'Create connection'} onClose={props.onClose}>
      <form
        class="console-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        {record ? null : (
          <>
            <Field label="Provider" value={provider} onInput={setProvider} hint="Lowercase, e.g. openai." />
            <div class="field">
              <label for="connection-wire">Wire</label>
              <select id="connection-wire" value={wire} onChange={(event) => setWire(event.currentTarget.value)}>
                {connectionWires.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </div>
            {bedrock ? (
              <Field
                label="Region"
                value={region}
                onInput={setRegion}
                required
                hint="The AWS region requests are signed for, e.g. us-west-2."
              />
            ) : null}
            <Field label="Upstream prefix" value={upstream} onInput={setUpstream} />
            <div class="field field-check">
              <input
                id="connection-private"
                type="checkbox"
                checked={privateNetwork}
                onChange={(event) => setPrivateNetwork(event.currentTarget.checked)}
              />
              <label for="connection-private">Reaches a private network</label>
            </div>
          </>
        )}
        <Field
          label="Base URL"
          value={baseUrl}
          onInput={setBaseUrl}
          {...(bedrock ? { hint: "Optional: blank is the region's runtime endpoint (or a VPC endpoint's URL)." } : {})}
        />
        <Field
          label="Models"
          value={models}
          onInput={setModels}
          hint={
            bedrock
              ? 'Comma-separated Bedrock model ids (Anthropic models, foundation or inference profile).'
              : 'Comma-separated. Blank: every model it lists.'
          }
        />
        <Field
          label={record ? 'New credential' : bedrock ? 'Bedrock API key' : 'Credential'}
          type="password"
          value={apiKey}
          onInput={setApiKey}
          autoComplete="new-password"
          hint={
            record
              ? 'Blank keeps the stored one. Never shown again.'
              : bedrock
                ? "Optional: blank signs each request as the gateway's own AWS identity. Never shown again."
                : 'The provider API key. Never shown again.'
          }
        />
        {conflict ? (
          <ConflictNotice
            subject="this connection"
            onReload={() => {
              setRecord(conflict);
              setBaseUrl(conflict.baseUrl);
              setModels(conflict.models.join(', '));
              setConflict(null);
              setError(null);
            }}
          />
        ) : (
          <ErrorMessage error={error} />
        )}
        <div class="dialog-actions">
          <button type="submit" class="button-primary">
            {record ? 'Save' : 'Create connection'}
          </button>
          <button type="button" class="button-quiet" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
