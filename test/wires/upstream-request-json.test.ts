import { describe, expect, it } from 'vitest';
import { type UpstreamBodyRewrite, upstreamRequestJson } from '../../shared/wires/upstream-request-json.ts';

/** A rewrite that records the bodies it was given, and marks what it returns. */
function recordingRewrite(marker: string, mark: string): UpstreamBodyRewrite & { seen: unknown[] } {
  const seen: unknown[] = [];
  return {
    markers: [marker],
    seen,
    rewrite(body) {
      seen.push(body);
      return { ...body, [mark]: true };
    },
  };
}

describe('upstreamRequestJson', () => {
  it('is the body`s JSON, and walks nothing, when the text holds no rewrite`s marker', () => {
    const body = { model: 'm', input: [{ role: 'user', content: 'Hi' }] };
    const rewrite = recordingRewrite('_marker_', 'rewritten');
    expect(upstreamRequestJson(body, [rewrite])).toBe(JSON.stringify(body));
    expect(rewrite.seen).toEqual([]);
  });

  it('gives the body to each rewrite whose marker its JSON holds, in order, and writes what they return', () => {
    const body = { model: 'm', input: [{ role: 'user', content: 'first _one_ then _two_' }] };
    const one = recordingRewrite('_one_', 'one');
    const two = recordingRewrite('_two_', 'two');
    const absent = recordingRewrite('_three_', 'three');
    expect(JSON.parse(upstreamRequestJson(body, [one, absent, two]))).toEqual({ ...body, one: true, two: true });
    expect(one.seen).toEqual([body]);
    expect(two.seen).toEqual([{ ...body, one: true }]);
    expect(absent.seen).toEqual([]);
  });
});
