import {
  BedrockRuntimeClient,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeBedrock, fakeAwsCredentials, startFakeBedrock } from './fake-bedrock.ts';

/** The stand-in is proven with AWS's own client: what it accepts, the real Bedrock client sends and reads. */
let bedrock: FakeBedrock;
const model = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const body = JSON.stringify({
  anthropic_version: 'bedrock-2023-05-31',
  max_tokens: 20,
  messages: [{ role: 'user', content: 'hello there' }],
});

function client(
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string } = fakeAwsCredentials,
) {
  return new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: bedrock.url,
    credentials,
    maxAttempts: 1,
    // The stand-in speaks HTTP/1.1, as Bedrock's runtime does for these operations.
    requestHandler: new NodeHttpHandler(),
  });
}

beforeAll(async () => {
  bedrock = await startFakeBedrock();
});
afterAll(async () => {
  await bedrock.close();
});

describe('the fake Bedrock, driven by @aws-sdk/client-bedrock-runtime', () => {
  it('accepts InvokeModel signed by the real client and answers the messages JSON', async () => {
    const answer = await client().send(
      new InvokeModelCommand({ modelId: model, body, contentType: 'application/json', accept: 'application/json' }),
    );
    const message = JSON.parse(new TextDecoder().decode(answer.body)) as { content: { text: string }[] };
    expect(message.content[0]?.text).toBe('echo: hello there');
    const received = bedrock.requests.at(-1);
    expect(received?.rawPath).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
    expect(received?.refusedAs).toBeUndefined();
  });

  it('streams frames the real client decodes into chunk events', async () => {
    const answer = await client().send(
      new InvokeModelWithResponseStreamCommand({ modelId: model, body, contentType: 'application/json' }),
    );
    const types: string[] = [];
    for await (const event of answer.body ?? []) {
      if (event.chunk?.bytes)
        types.push((JSON.parse(new TextDecoder().decode(event.chunk.bytes)) as { type: string }).type);
    }
    expect(types[0]).toBe('message_start');
    expect(types).toContain('content_block_delta');
    expect(types.at(-1)).toBe('message_stop');
  });

  it('surfaces a mid-stream exception frame to the real client as that exception', async () => {
    bedrock.nextResponse({ type: 'answer', streamException: { afterEvents: 2, exception: 'throttlingException' } });
    const answer = await client().send(
      new InvokeModelWithResponseStreamCommand({ modelId: model, body, contentType: 'application/json' }),
    );
    await expect(async () => {
      for await (const _event of answer.body ?? []) {
        // read to the exception
      }
    }).rejects.toMatchObject({ name: 'ThrottlingException' });
  });

  it('refuses a request signed with the wrong secret (InvalidSignatureException) or an unknown key', async () => {
    await expect(
      client({ ...fakeAwsCredentials, secretAccessKey: 'not-the-secret' }).send(
        new InvokeModelCommand({ modelId: model, body, contentType: 'application/json' }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidSignatureException', $metadata: { httpStatusCode: 403 } });
    await expect(
      client({ ...fakeAwsCredentials, accessKeyId: 'AKIAUNKNOWNKEY000000' }).send(
        new InvokeModelCommand({ modelId: model, body, contentType: 'application/json' }),
      ),
    ).rejects.toMatchObject({ name: 'UnrecognizedClientException', $metadata: { httpStatusCode: 403 } });
  });

  it('refuses a signed request whose body was altered on the way', async () => {
    const signed = client();
    // Alter the body after signing, as a man in the middle would.
    signed.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { body: string | Uint8Array };
        const text = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
        expect(text).toContain('hello there');
        request.body = text.replace('hello there', 'hello THERE');
        return next(args);
      },
      // The deserialize step wraps the sending of the request as signed.
      { step: 'deserialize', name: 'alterAfterSigning' },
    );
    await expect(
      signed.send(new InvokeModelCommand({ modelId: model, body, contentType: 'application/json' })),
    ).rejects.toMatchObject({ name: 'InvalidSignatureException' });
  });
});
