import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  chunkSchema,
  parseChatStreamEvent,
  readPlainChunk,
} from '../../../shared/wires/openai-chat/openai-chat-stream-event.ts';

/**
 * `readPlainChunk` reads the common chunk without zod. Whatever it reads must be exactly what the chunk schema
 * makes of the same payload (the same fields, values and order, so a translator or an encoder cannot tell them
 * apart), and whatever it declines the schema reads. Held here over every chat chunk of the fixtures and over each
 * field of a chunk set to every kind of JSON value.
 */
const fixtureFolders = ['messages-to-chat', 'responses-to-chat'].map((name) =>
  join(import.meta.dirname, '..', '..', 'fixtures', 'translation', name),
);

function fixtureChunks(): unknown[] {
  const chunks: unknown[] = [];
  for (const folder of fixtureFolders) {
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.sse'))) {
      for (const line of readFileSync(join(folder, file), 'utf8').split('\n')) {
        if (!line.startsWith('data: {')) continue;
        const payload = JSON.parse(line.slice('data: '.length)) as Record<string, unknown>;
        if (payload.object === 'chat.completion.chunk') chunks.push(payload);
      }
    }
  }
  return chunks;
}

const base = {
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, logprobs: null, finish_reason: null }],
  usage: null,
};

/** Every kind of value a JSON field can hold, and its absence. */
const values: unknown[] = [
  'absent',
  null,
  '',
  'text',
  0,
  1.5,
  -3,
  true,
  {},
  [],
  [{}],
  { content: 'x' },
  [{ index: 0 }],
];

/** The base chunk with one field (a path into it) set to each value, or removed. */
function variants(): unknown[] {
  const paths: string[][] = [
    ['choices'],
    ['usage'],
    ['choices', '0'],
    ['choices', '0', 'index'],
    ['choices', '0', 'delta'],
    ['choices', '0', 'finish_reason'],
    ['choices', '0', 'delta', 'content'],
    ['choices', '0', 'delta', 'refusal'],
    ['choices', '0', 'delta', 'reasoning_content'],
    ['choices', '0', 'delta', 'tool_calls'],
    ['choices', '0', 'delta', 'thinking_blocks'],
  ];
  const out: unknown[] = [null, [], 'text', 1, {}];
  for (const path of paths) {
    for (const value of values) {
      const copy = structuredClone(base) as Record<string, unknown>;
      let holder: Record<string, unknown> = copy;
      for (const step of path.slice(0, -1)) holder = holder[step] as Record<string, unknown>;
      const last = path.at(-1) as string;
      if (value === 'absent') delete holder[last];
      else holder[last] = structuredClone(value);
      out.push(copy);
    }
  }
  // Two choices, and a usage chunk as include_usage ends a stream with.
  out.push({ ...base, choices: [base.choices[0], { index: 1, delta: { content: 'b' }, finish_reason: 'stop' }] });
  out.push({ ...base, choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } });
  return out;
}

describe('reading a chat chunk without zod', () => {
  const payloads = [...fixtureChunks(), ...variants()];

  it('reads what it reads exactly as the chunk schema does, and leaves the rest to it', () => {
    let readPlainly = 0;
    for (const payload of payloads) {
      const plain = readPlainChunk(payload);
      const schema = chunkSchema.safeParse(payload);
      if (plain === undefined) continue;
      readPlainly++;
      expect(schema.success, JSON.stringify(payload)).toBe(true);
      expect(plain, JSON.stringify(payload)).toStrictEqual(schema.data);
      // The same fields in the same order (toStrictEqual does not look at order).
      expect(JSON.stringify(plain)).toBe(JSON.stringify(schema.data));
      expect(Object.keys(plain)).toEqual(Object.keys(schema.data ?? {}));
    }
    // Most fixture chunks and variants are plain: the comparison is not vacuous.
    expect(readPlainly).toBeGreaterThan(payloads.length / 3);
  });

  it('gives every event of a stream the same reading as the schema alone', () => {
    for (const payload of payloads) {
      const event = parseChatStreamEvent({ event: undefined, data: JSON.stringify(payload) });
      const schema = chunkSchema.safeParse(payload);
      if (event?.type === 'error') continue;
      expect(event, JSON.stringify(payload)).toStrictEqual(
        schema.success ? { type: 'chunk', chunk: schema.data } : undefined,
      );
    }
  });
});
