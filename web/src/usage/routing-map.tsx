import type { JSX } from 'preact';
import { formatInteger, providerColor } from '../format.ts';
import type { RoutingEdge, RoutingNode, UsageSummary } from '../usage-types.ts';

const columns = [
  { column: 'key', title: 'Keys', x: 236, labelSide: 'left' },
  { column: 'upstream', title: 'Upstream prefix', x: 476, labelSide: 'right' },
  { column: 'provider', title: 'Provider', x: 686, labelSide: 'right' },
  { column: 'model', title: 'Model', x: 866, labelSide: 'right' },
] as const;
const width = 1060;
/** Longer labels are cut (the node's tooltip keeps the whole name) so they stay inside their column. */
const labelCharacters = 30;
const nodeWidth = 12;
const gap = 14;
const top = 34;

interface PlacedNode extends RoutingNode {
  x: number;
  y: number;
  height: number;
  /** Where the next outgoing and incoming band starts along the node. */
  outOffset: number;
  inOffset: number;
}

/**
 * Each request passes every column once, so all columns have the same total and one scale turns requests into
 * height everywhere: a band's width is the same at both ends and across hops.
 */
function place(nodes: RoutingNode[]): { placed: Map<string, PlacedNode>; height: number; scale: number } {
  const total = nodes.filter((node) => node.column === 'key').reduce((sum, node) => sum + node.requests, 0);
  const largestColumn = Math.max(...columns.map(({ column }) => nodes.filter((n) => n.column === column).length));
  const height = Math.max(240, largestColumn * 36);
  const scale = total > 0 ? (height - gap * (largestColumn - 1)) / total : 0;
  const placed = new Map<string, PlacedNode>();
  for (const { column, x } of columns) {
    const inColumn = nodes.filter((node) => node.column === column);
    const heights = inColumn.map((node) => Math.max(3, node.requests * scale));
    const used = heights.reduce((sum, h) => sum + h, 0) + gap * (inColumn.length - 1);
    let y = top + (height - used) / 2;
    inColumn.forEach((node, index) => {
      const nodeHeight = heights[index] ?? 3;
      placed.set(node.id, { ...node, x, y, height: nodeHeight, outOffset: 0, inOffset: 0 });
      y += nodeHeight + gap;
    });
  }
  return { placed, height: height + top + 8, scale };
}

function band(from: PlacedNode, to: PlacedNode, thickness: number): string {
  const y0 = from.y + from.outOffset + thickness / 2;
  const y1 = to.y + to.inOffset + thickness / 2;
  const x0 = from.x + nodeWidth;
  const x1 = to.x;
  const middle = (x0 + x1) / 2;
  return `M${x0},${y0} C${middle},${y0} ${middle},${y1} ${x1},${y1}`;
}

function describeEdge(edge: RoutingEdge, from: PlacedNode, to: PlacedNode): string {
  const parts = [`${formatInteger(edge.requests)} requests`];
  if (edge.failed > 0) parts.push(`${formatInteger(edge.failed)} failed`);
  if (edge.running > 0) parts.push(`${formatInteger(edge.running)} running`);
  return `${from.label} → ${to.label}: ${parts.join(', ')}`;
}

/**
 * The routing map as SVG: keys → upstream prefix → provider → model, bands as wide as the recorded requests
 * (failed and running included), a red core for the failed share. Provider nodes toggle the provider filter.
 */
export function RoutingMap(props: { summary: UsageSummary; onProviderToggle: (provider: string) => void }) {
  const { nodes, edges } = props.summary.routingMap;
  if (nodes.length === 0) {
    return <p class="empty-note">No recorded activity to map for this period and these filters.</p>;
  }
  const ordered = [...nodes].sort((a, b) => b.requests - a.requests || a.label.localeCompare(b.label));
  const { placed, height, scale } = place(ordered);
  const total = ordered.filter((node) => node.column === 'key').reduce((sum, node) => sum + node.requests, 0);
  const sortedEdges = [...edges].sort(
    (a, b) => (placed.get(a.to)?.y ?? 0) - (placed.get(b.to)?.y ?? 0) || b.requests - a.requests,
  );
  // Bands are laid out in order, each starting where the previous one on the same node ended.
  const links: JSX.Element[] = [];
  for (const edge of sortedEdges) {
    const from = placed.get(edge.from);
    const to = placed.get(edge.to);
    if (!from || !to) continue;
    const thickness = Math.max(1.5, edge.requests * scale);
    const path = band(from, to, thickness);
    links.push(
      <g key={`${edge.from}>${edge.to}`} class="map-link">
        <title>{describeEdge(edge, from, to)}</title>
        <path d={path} stroke-width={thickness} class="map-band" />
        {edge.failed > 0 ? <path d={path} stroke-width={Math.max(1, edge.failed * scale)} class="map-failed" /> : null}
      </g>,
    );
    from.outOffset += edge.requests * scale;
    to.inOffset += edge.requests * scale;
  }
  return (
    <svg
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={`Routing map of ${formatInteger(total)} recorded requests: keys to upstream prefix to provider to model`}
      class="routing-svg"
    >
      {columns.map(({ title, x }) => (
        <text key={title} x={x + nodeWidth / 2} y={16} text-anchor="middle" class="map-heading">
          {title}
        </text>
      ))}
      {links}
      {[...placed.values()].map((node) => (
        <MapNode key={node.id} node={node} summary={props.summary} onProviderToggle={props.onProviderToggle} />
      ))}
    </svg>
  );
}

function MapNode(props: { node: PlacedNode; summary: UsageSummary; onProviderToggle: (provider: string) => void }) {
  const { node, summary } = props;
  const fill = node.column === 'provider' ? providerColor(node.label, summary.providers) : '#475569';
  const left = columns.find((entry) => entry.column === node.column)?.labelSide === 'left';
  const name = node.label.length > labelCharacters ? `${node.label.slice(0, labelCharacters - 1)}…` : node.label;
  const provider = node.column === 'provider';
  const selected = provider && summary.filters.providers.includes(node.label);
  const toggle = () => props.onProviderToggle(node.label);
  return (
    <g
      class={`map-node map-node-${node.column}`}
      {...(provider
        ? {
            role: 'button',
            tabIndex: 0,
            'aria-pressed': selected,
            'aria-label': `${selected ? 'Remove' : 'Add'} provider filter ${node.label}`,
            onClick: toggle,
            onKeyDown: (event: KeyboardEvent) => {
              if (event.key === 'Enter' || event.key === ' ') {
                event.preventDefault();
                toggle();
              }
            },
          }
        : {})}
    >
      <title>{`${node.label}: ${formatInteger(node.requests)} requests`}</title>
      <rect x={node.x} y={node.y} width={nodeWidth} height={node.height} rx={2} fill={fill} />
      <text
        x={left ? node.x - 8 : node.x + nodeWidth + 8}
        y={node.y + node.height / 2}
        text-anchor={left ? 'end' : 'start'}
        dominant-baseline="middle"
        class="map-label"
      >
        {`${name} · ${formatInteger(node.requests)}`}
      </text>
    </g>
  );
}
