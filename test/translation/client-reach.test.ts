import { describe, expect, it } from 'vitest';
import { anthropicMessagesReach } from '../../shared/translation/client-reach/anthropic-messages-reach.ts';
import { everyHop } from '../../shared/translation/client-reach/every-hop.ts';
import { geminiReach } from '../../shared/translation/client-reach/gemini-reach.ts';
import { loadBedrockReach } from '../../shared/translation/client-reach/load-bedrock-reach.ts';
import { openaiChatReach } from '../../shared/translation/client-reach/openai-chat-reach.ts';
import { openaiResponsesReach } from '../../shared/translation/client-reach/openai-responses-reach.ts';
import { type ClientWireReach, reachTo } from '../../shared/translation/client-wire-reach.ts';
import { isBedrockHop, type TranslationHopName, translationPath } from '../../shared/translation/translation-paths.ts';
import { modelWires } from '../../shared/wires/model-wire.ts';
import { upstreamWireFor } from '../../shared/wires/upstream-wires.ts';
import {
  type ClientWire,
  isBedrockFamilyWire,
  type UpstreamWire,
  upstreamWires,
} from '../../shared/wires/wire-names.ts';

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
      // What a model can be called in: every connection wire, and Converse, which a Bedrock connection carries.
      const reachable = modelWires.filter((upstream) => translationPath(wire, upstream) !== undefined);
      // Bedrock's wires and hops come with Bedrock's code, loaded on the first request that needs them: a function
      // whose requests can reach Bedrock carries the loader and, once loaded, every one of them.
      const bedrock = reach.bedrock ? await reach.bedrock() : undefined;
      expect(bedrock !== undefined).toBe(reachable.some(isBedrockFamilyWire));
      // Each wire, like each hop, is loaded on the first request that needs it.
      const carried: Partial<Record<UpstreamWire, unknown>> = { ...bedrock?.upstreamWires };
      for (const [name, load] of Object.entries(reach.upstreamWires)) carried[name as UpstreamWire] = await load();
      // Each hop is loaded on the first request that takes it.
      const carriedHops: Partial<Record<TranslationHopName, unknown>> = { ...bedrock?.hops };
      for (const [name, load] of Object.entries(reach.hops)) carriedHops[name as TranslationHopName] = await load();
      expect(Object.keys(reach.upstreamWires).sort()).toEqual(
        reachable.filter((name) => !isBedrockFamilyWire(name)).sort(),
      );
      for (const upstream of reachable) expect(carried[upstream]).toBe(await upstreamWireFor(upstream));
      const needed = new Set(reachable.flatMap((upstream) => translationPath(wire, upstream) ?? []));
      expect(Object.keys(reach.hops).sort()).toEqual([...needed].filter((name) => !isBedrockHop(name)).sort());
      for (const name of needed) expect(carriedHops[name]).toBe(everyHop[name]);
    },
  );

  it.each(reachOfClientWire)(
    '%s: a request gets the wire and exactly the hops of its path, loaded',
    async (wire, reach) => {
      for (const upstream of modelWires) {
        const path = translationPath(wire, upstream);
        if (!path) {
          await expect(reachTo(reach, wire, upstream)).rejects.toThrow(/not in the/);
          continue;
        }
        const reached = await reachTo(reach, wire, upstream);
        expect(reached.upstreamWire).toBe(await upstreamWireFor(upstream));
        expect(Object.keys(reached.hops)).toEqual(path);
        for (const name of path) expect(reached.hops[name]).toBe(everyHop[name]);
      }
    },
  );

  it('loads Bedrock once: every function shares the one module, with every Bedrock wire and hop', async () => {
    const loaded = await loadBedrockReach();
    expect(await loadBedrockReach()).toBe(loaded);
    expect(Object.keys(loaded.upstreamWires).sort()).toEqual(upstreamWires.filter(isBedrockFamilyWire).sort());
    expect(Object.keys(loaded.hops).sort()).toEqual(
      (Object.keys(everyHop) as TranslationHopName[]).filter(isBedrockHop).sort(),
    );
    for (const [, reach] of reachOfClientWire) if (reach.bedrock) expect(await reach.bedrock()).toBe(loaded);
  });

  it('every hop on a path to a connection wire is carried by some function', async () => {
    const carried = new Set<string>();
    for (const [, reach] of reachOfClientWire) {
      for (const name of Object.keys(reach.hops)) carried.add(name);
      if (reach.bedrock) for (const name of Object.keys((await reach.bedrock()).hops)) carried.add(name);
    }
    const onSomePath = new Set(
      reachOfClientWire.flatMap(([wire]) => modelWires.flatMap((upstream) => translationPath(wire, upstream) ?? [])),
    );
    for (const name of onSomePath) expect(carried).toContain(name);
  });
});
