import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { cdkBundling } from '../../infra/lambda-bundle-build.ts';

/**
 * Everything only a Bedrock request needs — the SigV4 signing module, the event-stream decoders and codec, the
 * Converse wire and the chat-to-converse hop — is reached only through shared/wires/bedrock/bedrock-transport.ts,
 * which only `loadBedrockTransport()` imports, dynamically (docs/bedrock.md, "Bundles"). So that module can be built
 * beside each function's entry and loaded on the first Bedrock request. This bundles each function as the stack does
 * with that one import left out, and finds none of the Bedrock-only code left in it; with the import kept, the
 * inference functions do hold it (the check can fail).
 */
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Files and packages only the Bedrock transport may bring. */
const bedrockOnly = [
  /shared\/wires\/bedrock\/bedrock-transport\.ts$/,
  /shared\/wires\/bedrock\/bedrock-signing\.ts$/,
  /shared\/wires\/bedrock\/bedrock-event-stream\.ts$/,
  /shared\/wires\/bedrock\/bedrock-converse-event-stream\.ts$/,
  /shared\/wires\/bedrock\/bedrock-converse-transport-wire\.ts$/,
  /shared\/wires\/bedrock-converse\//,
  /shared\/translation\/chat-to-converse\//,
  /node_modules\/@smithy\/eventstream-codec\//,
];

/** Leaves the Bedrock transport module out, as a file built beside the entry would be. */
const transportApart: Plugin = {
  name: 'bedrock-transport-apart',
  setup(builder) {
    builder.onResolve({ filter: /\/bedrock-transport\.ts$/ }, (args) => ({ path: args.path, external: true }));
  },
};

async function bundledInputs(entry: string, plugins: Plugin[]): Promise<string[]> {
  const result = await build({
    ...cdkBundling,
    entryPoints: [`${projectRoot}functions/${entry}.ts`],
    outdir: `${projectRoot}node_modules/.cache/bedrock-boundary-${entry}`,
    write: false,
    minify: false,
    sourcemap: false,
    plugins,
  });
  return Object.keys(result.metafile?.inputs ?? {});
}

const bedrockOnlyIn = (inputs: string[]) => inputs.filter((input) => bedrockOnly.some((only) => only.test(input)));

describe('the Bedrock transport is one module apart', () => {
  it.each(['chat-completions', 'responses', 'messages', 'count-tokens', 'admin'])(
    '%s holds no Bedrock-only code but through bedrock-transport.ts',
    async (entry) => {
      expect(bedrockOnlyIn(await bundledInputs(entry, [transportApart]))).toEqual([]);
    },
  );

  it('is what brings that code into the bundles that reach Bedrock', async () => {
    const inputs = bedrockOnlyIn(await bundledInputs('chat-completions', []));
    expect(inputs).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/bedrock-signing\.ts$/),
        expect.stringMatching(/chat-to-converse-hop\.ts$/),
        expect.stringMatching(/bedrock-converse-upstream-wire\.ts$/),
        expect.stringMatching(/@smithy\/eventstream-codec\//),
      ]),
    );
  });
});
