import type {
  ConnectionProbeView,
  ConnectionTestView,
  ConnectionView,
  IssuedKeyView,
  KeyView,
  MemberView,
  PolicyView,
} from './admin-views.ts';
import { type Column, orDash, renderFields, renderTable } from './render-table.ts';

/** Policy in the spelling of the flags that set it, so what the table shows is what one would type. */
export function formatPolicy(policy: PolicyView): string {
  if (!policy) return '-';
  const parts: [string, string | number | null | undefined][] = [
    ['daily-tokens', policy.dailyTokens],
    ['rpm', policy.rpm],
    ['concurrency', policy.concurrency],
    ['max-output', policy.maxOutput],
    ['providers', policy.providers?.join(',')],
    ['models', policy.models?.join(',')],
  ];
  const set = parts.filter(([, value]) => value !== null && value !== undefined);
  return set.length === 0 ? '-' : set.map(([name, value]) => `${name}=${value}`).join(' ');
}

function renderList<Row>(rows: readonly Row[], noun: string, columns: readonly Column<Row>[]): string {
  return rows.length === 0 ? `no ${noun}\n` : renderTable(rows, columns);
}

export function renderMember(member: MemberView): string {
  return renderFields([
    ['id', member.id],
    ['name', member.name],
    ['role', member.role],
    ['status', member.status],
    ['policy', formatPolicy(member.policy)],
    ['created', orDash(member.createdAt)],
    ...(member.holdings ? [['holdings', `${member.holdings.usd} USD at ${member.holdings.at}`] as const] : []),
  ]);
}

export function renderMembers(members: readonly MemberView[]): string {
  return renderList(members, 'members', [
    { header: 'ID', cell: (member) => member.id },
    { header: 'NAME', cell: (member) => member.name },
    { header: 'ROLE', cell: (member) => member.role },
    { header: 'STATUS', cell: (member) => member.status },
    { header: 'POLICY', cell: (member) => formatPolicy(member.policy) },
    { header: 'CREATED', cell: (member) => orDash(member.createdAt) },
  ]);
}

export function renderKey(key: KeyView): string {
  return renderFields(keyFields(key));
}

function keyFields(key: KeyView): [string, string][] {
  return [
    ['id', key.id],
    ['member', key.memberId],
    ['name', orDash(key.name)],
    ['prefix', orDash(key.keyPrefix)],
    ['state', key.state],
    ['expires', key.expiresAt ?? 'never'],
    ['policy', formatPolicy(key.policy)],
    ['created', orDash(key.createdAt)],
    ['rotated', orDash(key.rotatedAt)],
  ];
}

/** The gateway keeps only a hash of the secret, so this is the one chance to copy it. */
export function renderIssuedKey(issued: IssuedKeyView): string {
  return `${renderFields([...keyFields(issued), ['key', issued.key]])}\nStore the key now: it is shown only once.\n`;
}

export function renderKeys(keys: readonly KeyView[]): string {
  return renderList(keys, 'keys', [
    { header: 'ID', cell: (key) => key.id },
    { header: 'MEMBER', cell: (key) => key.memberId },
    { header: 'NAME', cell: (key) => orDash(key.name) },
    { header: 'PREFIX', cell: (key) => orDash(key.keyPrefix) },
    { header: 'STATE', cell: (key) => key.state },
    { header: 'EXPIRES', cell: (key) => key.expiresAt ?? 'never' },
    { header: 'POLICY', cell: (key) => formatPolicy(key.policy) },
    { header: 'CREATED', cell: (key) => orDash(key.createdAt) },
  ]);
}

/** Models in the spelling of `--models`, limits included: `acme-1:ctx=200000:max=8192:input=text+image,acme-2`. */
function formatModels(connection: ConnectionView): string {
  const limits = new Map((connection.modelLimits ?? []).map((entry) => [entry.id, entry]));
  const models = (connection.models ?? []).map((model) => {
    const entry = limits.get(model);
    const context = entry?.contextWindow ? `:ctx=${entry.contextWindow}` : '';
    const output = entry?.maxOutput ? `:max=${entry.maxOutput}` : '';
    const input = entry?.inputModalities ? `:input=${entry.inputModalities.join('+')}` : '';
    return `${model}${context}${output}${input}`;
  });
  return orDash(models.join(','));
}

export function renderConnection(connection: ConnectionView): string {
  return renderFields([
    ['id', connection.id],
    ['provider', connection.provider],
    ['wire', connection.wire],
    ['base url', connection.baseUrl],
    ['upstream', orDash(connection.upstream)],
    ['private network', connection.privateNetwork ? 'yes' : 'no'],
    ['models', formatModels(connection)],
    ['enabled', connection.enabled ? 'yes' : 'no'],
    ['created', orDash(connection.createdAt)],
  ]);
}

export function renderConnections(connections: readonly ConnectionView[]): string {
  return renderList(connections, 'connections', [
    { header: 'ID', cell: (connection) => connection.id },
    { header: 'PROVIDER', cell: (connection) => connection.provider },
    { header: 'WIRE', cell: (connection) => connection.wire },
    { header: 'BASE URL', cell: (connection) => connection.baseUrl },
    { header: 'UPSTREAM', cell: (connection) => orDash(connection.upstream) },
    { header: 'PRIVATE', cell: (connection) => (connection.privateNetwork ? 'yes' : 'no') },
    { header: 'MODELS', cell: formatModels },
    { header: 'ENABLED', cell: (connection) => (connection.enabled ? 'yes' : 'no') },
    { header: 'CREATED', cell: (connection) => orDash(connection.createdAt) },
  ]);
}

/** What one call of a connection test came to, in a few words. */
function probeOutcome(probe: ConnectionProbeView): string {
  if (probe.failure) return `${probe.failure.code}: ${probe.failure.reason}`;
  if (!probe.models) return 'ok';
  const { count, ids, more } = probe.models;
  const shown = ids.slice(0, 5).join(', ');
  const rest = count > 5 || more ? ', …' : '';
  return `ok: ${count}${more ? '+' : ''} model${count === 1 ? '' : 's'}${count > 0 ? ` (${shown}${rest})` : ''}`;
}

export function renderConnectionTest(report: ConnectionTestView): string {
  const { connection } = report;
  const header = `connection ${connection.id} (${connection.provider}, ${connection.wire}) at ${connection.baseUrl}\n`;
  const table = renderTable(report.probes, [
    { header: 'CALL', cell: (probe) => (probe.model ? `${probe.call} ${probe.model}` : probe.call) },
    { header: 'URL', cell: (probe) => `${probe.method} ${probe.url}` },
    { header: 'STATUS', cell: (probe) => orDash(probe.status) },
    { header: 'LATENCY', cell: (probe) => `${probe.latencyMs} ms` },
    { header: 'RESULT', cell: probeOutcome },
  ]);
  const notListed = report.notListedUpstream?.length
    ? `not in the upstream's model list: ${report.notListedUpstream.join(', ')}\n`
    : '';
  return `${header}${table}${notListed}${report.ok ? 'the connection works\n' : 'the connection test failed\n'}`;
}
