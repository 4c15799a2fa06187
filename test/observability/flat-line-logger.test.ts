import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FlatLineLogger } from '../../shared/observability/flat-line-logger.ts';

/**
 * `infoFlat` is a cheaper way to print the line `info` prints (the settled request's, once per request): an operator
 * reading the logs must not be able to tell which one printed it. Both paths are run here on the same fields and
 * the same instant, and their output compared byte for byte.
 */
const settledFields = {
  requestId: 'req_lYapfz21DJJuYcjw',
  keyId: 'key_abc',
  memberId: 'mem_x',
  provider: 'openai',
  model: 'gpt-4o-mini "quoted" \\ and ünïcode \u2028',
  upstream: 'https://api.openai.com',
  wire: 'openai-chat',
  stream: false,
  status: 200,
  state: 'completed',
  inputTokens: 12,
  cachedInputTokens: null,
  outputTokens: 0,
  charge: 42,
  accountingSource: 'reported',
  durationMs: 1.2345,
  empty: '',
  missing: undefined,
};

/** What a logger prints to stdout while `print` runs, at one pinned instant. */
function printed(print: () => void): string {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    print();
  } finally {
    spy.mockRestore();
  }
  return written.join('');
}

// The test run quiets logs to WARN (vitest.config.ts); these loggers print at INFO, as the gateway's do.
beforeEach(() => {
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe('the flat log line', () => {
  it('prints exactly the bytes info prints, dropping the empty values as Powertools does', () => {
    vi.useFakeTimers({ now: new Date('2025-12-31T23:59:50.123Z'), toFake: ['Date'] });
    const logger = new FlatLineLogger({ serviceName: 'model-gateway' });
    const general = printed(() => logger.info('request settled', settledFields));
    const flat = printed(() => logger.infoFlat('request settled', settledFields));
    expect(flat).toBe(general);
    const line = JSON.parse(flat) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'INFO', message: 'request settled', requestId: 'req_lYapfz21DJJuYcjw' });
    expect(line).not.toHaveProperty('cachedInputTokens');
    expect(line.outputTokens).toBe(0);
  });

  it('carries the X-Ray trace id and the sampling rate as info does', () => {
    vi.useFakeTimers({ now: new Date('2024-02-29T12:30:00.000Z'), toFake: ['Date'] });
    vi.stubEnv('_X_AMZN_TRACE_ID', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');
    const logger = new FlatLineLogger({ serviceName: 'model-gateway', sampleRateValue: 0 });
    const general = printed(() => logger.info('request settled', settledFields));
    const flat = printed(() => logger.infoFlat('request settled', settledFields));
    expect(flat).toContain('"xray_trace_id":"1-5759e988-bd862e3fe1be46a994272793"');
    expect(flat).toBe(general);
  });

  it('goes the general way for a key appended to the logger, which may hold any value or share a name', () => {
    vi.useFakeTimers({ now: new Date('2024-02-29T12:30:00.000Z'), toFake: ['Date'] });
    const logger = new FlatLineLogger({ serviceName: 'model-gateway' });
    logger.appendKeys({ requestId: 'from-the-context', nested: { deep: [1, 2n] } });
    const general = printed(() => logger.info('request settled', settledFields));
    const flat = printed(() => logger.infoFlat('request settled', settledFields));
    expect(flat).toBe(general);
    expect(JSON.parse(flat)).toMatchObject({ requestId: 'req_lYapfz21DJJuYcjw', nested: { deep: [1, '2'] } });
  });

  it('prints what info prints for a logger given keys when it was made, or a Lambda context, or keys later', () => {
    vi.useFakeTimers({ now: new Date('2024-02-29T12:30:00.000Z'), toFake: ['Date'] });
    const withPersistentKeys = new FlatLineLogger({ serviceName: 'model-gateway', persistentKeys: { stage: 'prod' } });
    const persistent = printed(() => withPersistentKeys.infoFlat('request settled', settledFields));
    expect(persistent).toBe(printed(() => withPersistentKeys.info('request settled', settledFields)));
    expect(JSON.parse(persistent)).toMatchObject({ stage: 'prod' });

    const withContext = new FlatLineLogger({ serviceName: 'model-gateway' });
    withContext.addContext({
      functionName: 'chat-completions',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:chat-completions',
      memoryLimitInMB: '1024',
      awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
      logGroupName: '/aws/lambda/chat-completions',
      logStreamName: 'stream',
      callbackWaitsForEmptyEventLoop: true,
      getRemainingTimeInMillis: () => 1000,
      done: () => {},
      fail: () => {},
      succeed: () => {},
    });
    const inLambda = printed(() => withContext.infoFlat('request settled', settledFields));
    expect(inLambda).toBe(printed(() => withContext.info('request settled', settledFields)));
    expect(JSON.parse(inLambda)).toMatchObject({ function_name: 'chat-completions' });

    const laterKeys = new FlatLineLogger({ serviceName: 'model-gateway' });
    printed(() => laterKeys.infoFlat('request settled', settledFields));
    laterKeys.appendPersistentKeys({ region: 'eu' });
    const afterKeys = printed(() => laterKeys.infoFlat('request settled', settledFields));
    expect(afterKeys).toBe(printed(() => laterKeys.info('request settled', settledFields)));
    expect(JSON.parse(afterKeys)).toMatchObject({ region: 'eu' });
  });

  it('prints the timestamp in the configured time zone, and an empty message not at all, as info does', () => {
    vi.useFakeTimers({ now: new Date('2024-02-29T23:30:00.000Z'), toFake: ['Date'] });
    vi.stubEnv('TZ', 'Asia/Dhaka');
    const logger = new FlatLineLogger({ serviceName: 'model-gateway' });
    const flat = printed(() => logger.infoFlat('', settledFields));
    expect(flat).toBe(printed(() => logger.info('', settledFields)));
    expect(flat).toContain('"timestamp":"2024-03-01T05:30:00.000+06:00"');
    expect(JSON.parse(flat)).not.toHaveProperty('message');
  });

  it('prints nothing above INFO', () => {
    const logger = new FlatLineLogger({ serviceName: 'model-gateway', logLevel: 'WARN' });
    expect(printed(() => logger.infoFlat('request settled', settledFields))).toBe('');
  });
});
