import type { ActivityRow } from './usage-activity.ts';

export type RoutingNodeColumn = 'key' | 'upstream' | 'provider' | 'model';

export interface RoutingNode {
  /** `<column>:<name>`; a model's name is `provider/model`, since one model name may exist at two providers. */
  id: string;
  column: RoutingNodeColumn;
  label: string;
  requests: number;
}

/** Recorded activity along one hop. Weights are request counts, failed and running included. */
export interface RoutingEdge {
  from: string;
  to: string;
  requests: number;
  failed: number;
  running: number;
}

/**
 * Recorded activity as a graph keys → upstream prefix → provider → model. It says where requests went, not
 * whether a provider is healthy (spec §4.6 rule 3): a provider with no traffic is simply absent.
 */
export interface RoutingMap {
  nodes: RoutingNode[];
  edges: RoutingEdge[];
}

export function buildRoutingMap(rows: readonly ActivityRow[], keyLabel: (keyId: string) => string): RoutingMap {
  const nodes = new Map<string, RoutingNode>();
  const edges = new Map<string, RoutingEdge>();
  const touchNode = (column: RoutingNodeColumn, name: string, label: string, requests: number) => {
    const id = `${column}:${name}`;
    const node = nodes.get(id) ?? { id, column, label, requests: 0 };
    node.requests += requests;
    nodes.set(id, node);
    return id;
  };
  const touchEdge = (from: string, to: string, row: ActivityRow) => {
    const id = `${from}\n${to}`;
    const edge = edges.get(id) ?? { from, to, requests: 0, failed: 0, running: 0 };
    edge.requests += row.requests;
    edge.failed += row.failed;
    edge.running += row.running;
    edges.set(id, edge);
  };
  for (const row of rows) {
    if (row.requests === 0) continue;
    const key = touchNode('key', row.keyId, keyLabel(row.keyId), row.requests);
    const upstream = touchNode('upstream', row.upstream, row.upstream, row.requests);
    const provider = touchNode('provider', row.provider, row.provider, row.requests);
    const model = touchNode('model', `${row.provider}/${row.model}`, row.model, row.requests);
    touchEdge(key, upstream, row);
    touchEdge(upstream, provider, row);
    touchEdge(provider, model, row);
  }
  const byWeight = <T extends { requests: number }>(a: T, b: T) => b.requests - a.requests;
  return { nodes: [...nodes.values()].sort(byWeight), edges: [...edges.values()].sort(byWeight) };
}
