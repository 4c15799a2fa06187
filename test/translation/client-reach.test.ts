import { describe, expect, it } from 'vitest';
import { anthropicMessagesReach } from '../../shared/translation/client-reach/anthropic-messages-reach.ts';
import { everyHop } from '../../shared/translation/client-reach/every-hop.ts';
import { geminiReach } from '../../shared/translation/client-reach/gemini-reach.ts';
import { openaiChatReach } from '../../shared/translation/client-reach/openai-chat-reach.ts';
import { openaiResponsesReach } from '../../shared/translation/client-reach/openai-responses-reach.ts';
import type { ClientWireReach } from '../../shared/translation/client-wire-reach.ts';
import { translationPath } from '../../shared/translation/translation-paths.ts';
import { upstreamWireFor } from '../../shared/wires/upstream-wires.ts';
import { type ClientWire, connectionWires } from '../../shared/wires/wire-names.ts';

/**
 * Each inference function carries only the upstream wires and hops its client wire can reach (functions/<id>.ts
 * hands them to handleInference), so that other wires' code stays out of its Lambda bundle (docs/bundles.md). A
 * hop or upstream wire added to the gateway must be added to every client wire whose requests can now reach it, or
 * those requests would fail at run time: this is the check.
 */
const reachOfClientWire: [ClientWire, ClientWireReach][] = [
  ['openai-chat', openaiChatReach],
  ['anthropic-messages', anthropicMessagesReach],
  ['openai-responses', openaiResponsesReach],
  ['gemini', geminiReach],
];

describe('what each inference function carries to reach its connections', () => {
  it.each(reachOfClientWire)(
    '%s carries every upstream wire and hop its requests can reach, no other',
    (wire, reach) => {
      // What a connection can speak: bedrock-converse joins when the Bedrock transport makes it a connection wire,
      // and must then be added, with the chat-to-converse hop, to the reach of every wire this test names.
      const reachable = connectionWires.filter((upstream) => translationPath(wire, upstream) !== undefined);
      expect(Object.keys(reach.upstreamWires).sort()).toEqual([...reachable].sort());
      for (const upstream of reachable) expect(reach.upstreamWires[upstream]).toBe(upstreamWireFor(upstream));
      const needed = new Set(reachable.flatMap((upstream) => translationPath(wire, upstream) ?? []));
      expect(Object.keys(reach.hops).sort()).toEqual([...needed].sort());
      for (const name of needed) expect(reach.hops[name]).toBe(everyHop[name]);
    },
  );

  it('every hop on a path to a connection wire is carried by some function', () => {
    const carried = new Set(reachOfClientWire.flatMap(([, reach]) => Object.keys(reach.hops)));
    const onSomePath = new Set(
      reachOfClientWire.flatMap(([wire]) =>
        connectionWires.flatMap((upstream) => translationPath(wire, upstream) ?? []),
      ),
    );
    expect([...carried].sort()).toEqual([...onSomePath].sort());
  });
});
