import { createHmac } from 'node:crypto';
import { arrayAt, isRecord, type JsonRecord, stringAt } from './json-fields.ts';
import type { FakeRefusal } from './wire-reply.ts';

/**
 * Reasoning items as OpenAI's Responses API keeps them. A reasoning model's answer opens with a reasoning item; with
 * `include: ["reasoning.encrypted_content"]` it carries the reasoning encrypted under the vendor's key, so a
 * stateless client (`store: false`) can send it back. The fake's `encrypted_content` is its own: an HMAC over the
 * text, which only it can make, so a value it did not issue is told apart as the vendor tells it.
 * https://platform.openai.com/docs/guides/reasoning#encrypted-reasoning-items
 */
const encryptionKey = 'fake-upstream-reasoning-key';

export function encryptedReasoning(text: string): string {
  const seal = createHmac('sha256', encryptionKey).update(text).digest('base64url');
  return `fake-encrypted.${seal}.${Buffer.from(text).toString('base64url')}`;
}

function isEncryptedReasoningIntact(value: string): boolean {
  const [prefix, seal, encodedText] = value.split('.');
  if (prefix !== 'fake-encrypted' || seal === undefined || encodedText === undefined) return false;
  return value === encryptedReasoning(Buffer.from(encodedText, 'base64url').toString());
}

/** The ids the fake gives the items of its answers (openai-responses.ts): `rs_fake_0`, `fc_fake_3_1`… */
const issuedItemId = /^(?:rs|msg|fc)_fake_\d+(?:_\d+)?$/;

/**
 * The vendor's checks of the reasoning a conversation sends back, as it refuses them; `undefined` when it passes.
 * - A reasoning item whose `encrypted_content` it did not issue: 400 `invalid_encrypted_content` (openai/codex#8119,
 *   #35334: "The encrypted content for item rs_… could not be verified. Reason: Encrypted content could not be
 *   decrypted or parsed.").
 * - A reasoning item sent by its id alone, and an `item_reference`, name an item the vendor must read from storage:
 *   with `store: false` nothing was stored, so 404 "Items are not persisted when `store` is set to false"
 *   (vercel/ai#7543); otherwise an id it never issued is a 404 "Item with id '…' not found." (vercel/ai#10290).
 */
export function responsesReasoningRefusal(request: JsonRecord): FakeRefusal | undefined {
  for (const item of arrayAt(request, 'input')) {
    if (!isRecord(item)) continue;
    const id = stringAt(item, 'id');
    const encrypted = stringAt(item, 'encrypted_content');
    const type = stringAt(item, 'type');
    if (type === 'reasoning' && encrypted !== undefined) {
      if (!isEncryptedReasoningIntact(encrypted)) return unverifiable(id, encrypted);
    } else if ((type === 'reasoning' || type === 'item_reference') && id !== undefined) {
      if (request['store'] === false)
        return notFound(
          id,
          ' Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.',
        );
      if (!issuedItemId.test(id)) return notFound(id, '');
    }
  }
  return undefined;
}

function unverifiable(id: string | undefined, encrypted: string): FakeRefusal {
  const what = id === undefined ? `${encrypted.slice(0, 4)}...${encrypted.slice(-4)}` : `for item ${id}`;
  return {
    message: `The encrypted content ${what} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`,
    code: 'invalid_encrypted_content',
  };
}

function notFound(id: string, why: string): FakeRefusal {
  return { status: 404, message: `Item with id '${id}' not found.${why}`, param: 'input', code: null };
}
