import { describe, expect, it } from 'vitest';
import { anthropicMessagesReach } from '../../shared/translation/client-reach/anthropic-messages-reach.ts';
import { everyHop } from '../../shared/translation/client-reach/every-hop.ts';
import { geminiReach } from '../../shared/translation/client-reach/gemini-reach.ts';
import { openaiChatReach } from '../../shared/translation/client-reach/openai-chat-reach.ts';
import { openaiResponsesReach } from '../../shared/translation/client-reach/openai-responses-reach.ts';
import { type ClientWireReach, upstreamWireInReach } from '../../shared/translation/client-wire-reach.ts';
import { translationPath } from '../../shared/translation/translation-paths.ts';
import { modelWires } from '../../shared/wires/model-wire.ts';
import { upstreamWireFor } from '../../shared/wires/upstream-wires.ts';
import { type ClientWire, connectionWires, type UpstreamWire } from '../../shared/wires/wire-names.ts';

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
    async (wire, reach) => {
      // What a model can be called in: the connection wires, and Converse, which a Bedrock connection carries for
      // its models other than Anthropic's (model-wire.ts). Converse comes lazily, with the Bedrock transport.
      const reachable = modelWires.filter((upstream) => translationPath(wire, upstream) !== undefined);
      const carried = [...Object.keys(reach.upstreamWires), ...Object.keys(reach.lazyUpstreamWires ?? {})];
      expect(carried.sort()).toEqual([...reachable].sort());
      expect(Object.keys(reach.lazyUpstreamWires ?? {}).every((lazy) => lazy === 'bedrock-converse')).toBe(true);
      for (const upstream of connectionWires.filter((name) => reachable.includes(name))) {
        expect(reach.upstreamWires[upstream]).toBe(upstreamWireFor(upstream));
      }
      // The hops carried from the start are those on the way to the wires carried from the start; a lazy wire
      // brings the rest of its way with it.
      const eager = Object.keys(reach.upstreamWires) as UpstreamWire[];
      const neededEagerly = new Set(eager.flatMap((upstream) => translationPath(wire, upstream) ?? []));
      const onLazyPathsOnly = reachable
        .flatMap((upstream) => translationPath(wire, upstream) ?? [])
        .filter((name) => !neededEagerly.has(name));
      expect(Object.keys(reach.hops).sort()).toEqual([...neededEagerly].sort());
      for (const upstream of reachable) {
        const loaded = await upstreamWireInReach(reach, upstream);
        expect(loaded?.upstreamWire.wire).toBe(upstream);
        for (const name of translationPath(wire, upstream) ?? []) expect(loaded?.hops[name]).toBe(everyHop[name]);
      }
      for (const name of onLazyPathsOnly) expect(reach.hops[name]).toBeUndefined();
    },
  );

  it('every hop on a path to a model wire is carried by some function', async () => {
    const carried = new Set<string>();
    for (const [wire, reach] of reachOfClientWire) {
      for (const upstream of modelWires) {
        const loaded = translationPath(wire, upstream) && (await upstreamWireInReach(reach, upstream));
        for (const name of Object.keys(loaded ? loaded.hops : {})) carried.add(name);
      }
    }
    const onSomePath = new Set(
      reachOfClientWire.flatMap(([wire]) => modelWires.flatMap((upstream) => translationPath(wire, upstream) ?? [])),
    );
    expect([...carried].sort()).toEqual([...onSomePath].sort());
  });
});
