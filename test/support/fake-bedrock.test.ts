import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
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

describe('the fake Bedrock answering Converse, driven by the real client', () => {
  const nova = 'us.amazon.nova-lite-v1:0';
  const messages = [{ role: 'user' as const, content: [{ text: 'hello nova' }] }];

  it('answers ConverseCommand with the message, the stop reason and the usage, cache reads and writes apart', async () => {
    bedrock.nextResponse({ type: 'answer', cacheWriteInputTokens: 3 });
    const answer = await client().send(
      new ConverseCommand({ modelId: nova, messages, inferenceConfig: { maxTokens: 50 } }),
    );
    expect(answer.output?.message?.content).toEqual([{ text: 'echo: hello nova' }]);
    expect(answer.stopReason).toBe('end_turn');
    expect(answer.usage).toMatchObject({
      inputTokens: 9,
      outputTokens: 9,
      cacheReadInputTokens: 5,
      cacheWriteInputTokens: 3,
    });
    const received = bedrock.requests.at(-1);
    expect(received?.rawPath).toBe('/model/us.amazon.nova-lite-v1%3A0/converse');
    expect(received?.refusedAs).toBeUndefined();
  });

  it('streams ConverseStreamCommand in frames the real client decodes into its events, tool use included', async () => {
    const answer = await client().send(
      new ConverseStreamCommand({
        modelId: nova,
        messages,
        inferenceConfig: { maxTokens: 50 },
        toolConfig: {
          tools: [{ toolSpec: { name: 'read_file', inputSchema: { json: { type: 'object', properties: {} } } } }],
        },
      }),
    );
    const kinds: string[] = [];
    let input = '';
    let usage: unknown;
    for await (const event of answer.stream ?? []) {
      kinds.push(
        Object.keys(event).find((key) => (event as unknown as Record<string, unknown>)[key] !== undefined) ?? '?',
      );
      input += event.contentBlockDelta?.delta?.toolUse?.input ?? '';
      usage ??= event.metadata?.usage;
    }
    expect(kinds[0]).toBe('messageStart');
    expect(kinds).toContain('contentBlockStart');
    expect(kinds.slice(-2)).toEqual(['messageStop', 'metadata']);
    expect(JSON.parse(input)).toEqual({ input: 'hello nova' });
    expect(usage).toMatchObject({ inputTokens: 12, outputTokens: 9, cacheReadInputTokens: 5 });
    expect(bedrock.requests.at(-1)?.rawPath).toBe('/model/us.amazon.nova-lite-v1%3A0/converse-stream');
  });

  it('ends a ConverseStream with the exception its frame names, and refuses a forged signature with 403', async () => {
    bedrock.nextResponse({
      type: 'answer',
      streamException: { afterEvents: 2, exception: 'modelStreamErrorException' },
    });
    const answer = await client().send(new ConverseStreamCommand({ modelId: nova, messages }));
    await expect(async () => {
      for await (const _event of answer.stream ?? []) {
        // read to the exception
      }
    }).rejects.toMatchObject({ name: 'ModelStreamErrorException' });
    await expect(
      client({ ...fakeAwsCredentials, secretAccessKey: 'forged-secret' }).send(
        new ConverseCommand({ modelId: nova, messages }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidSignatureException', $metadata: { httpStatusCode: 403 } });
  });

  it('answers a throttled Converse as Bedrock does: 429 ThrottlingException', async () => {
    bedrock.nextResponse({
      type: 'error',
      status: 429,
      exception: 'ThrottlingException',
      message: 'Too many requests',
    });
    await expect(client().send(new ConverseCommand({ modelId: nova, messages }))).rejects.toMatchObject({
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 429 },
    });
  });
});
