/**
 * A change to a request body as it goes upstream that only some bodies need: the gateway's own artifacts (a call id
 * carrying signed reasoning, a reasoning item or an item id the gateway made) that a client sent back with a
 * history and that no upstream should see. Each is recognised by text its JSON must hold, so a body without that
 * text is never walked.
 */
export interface UpstreamBodyRewrite {
  /** The body needs the rewrite only if its JSON holds one of these. */
  readonly markers: readonly string[];
  /** The body as the upstream gets it; the client's body is left as it came. Throws a GatewayError to refuse it. */
  rewrite(body: Record<string, unknown>): Record<string, unknown>;
}

/**
 * A request body's JSON as the upstream receives it. It is written once and scanned for each rewrite's markers:
 * a body that holds none costs those scans of its text; only one that does is walked, by the rewrites it needs, and
 * written again.
 */
export function upstreamRequestJson(body: Record<string, unknown>, rewrites: readonly UpstreamBodyRewrite[]): string {
  const json = JSON.stringify(body);
  const needed = rewrites.filter(({ markers }) => markers.some((marker) => json.includes(marker)));
  if (needed.length === 0) return json;
  return JSON.stringify(needed.reduce((rewritten, { rewrite }) => rewrite(rewritten), body));
}
