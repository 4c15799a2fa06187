import { describe, expect, it, vi } from 'vitest';
import type { StandardInput } from '../../cli/read-credential.ts';
import { runInProcess, testAdminKey } from './cli-harness.ts';

const connectionFlags = ['--provider', 'alpha', '--wire', 'openai-chat', '--base-url', 'https://api.example.com/v1'];

/** Every case must fail before anything is sent, with one line on stderr and exit code 2. */
const usageErrors: readonly (readonly [label: string, argv: readonly string[], message: RegExp])[] = [
  ['no command', [], /missing command/],
  ['unknown command', ['frob'], /unknown command 'frob'; commands: member, key, holder, connection, usage/],
  ['unknown action', ['member', 'frob'], /unknown command 'member frob'/],
  ['group without action', ['key'], /'key' needs one of: create, list, revoke, rotate/],
  ['flag before the command', ['--json', 'member', 'list'], /expected a command before '--json'/],
  ['unknown help topic', ['help', 'member', 'frob'], /unknown command 'member frob'/],
  ['unknown flag', ['member', 'list', '--bogus'], /member list: Unknown option '--bogus'/],
  ['unknown short flag', ['member', 'create', '--name', 'a', '-x'], /Unknown option '-x'/],
  ['flag of another command', ['member', 'list', '--member', 'm'], /Unknown option '--member'/],
  ['missing value at the end', ['member', 'create', '--name'], /Option '--name <value>' argument missing/],
  ['missing value before a flag', ['member', 'create', '--name', '--role', 'admin'], /'--name' argument is ambiguous/],
  ['empty value', ['member', 'create', '--name='], /--name needs a value/],
  ['value given to a switch', ['member', 'list', '--json=yes'], /'--json' does not take an argument/],
  ['repeated single-value flag', ['member', 'create', '--name', 'a', '--name', 'b'], /--name is given more than once/],
  ['missing --name', ['member', 'create', '--role', 'admin'], /missing required flag --name N/],
  ['missing --member', ['key', 'create', '--name', 'laptop'], /missing required flag --member ID/],
  ['missing --provider', ['connection', 'create', '--api-key-stdin'], /missing required flag --provider NAME/],
  [
    'missing --wire',
    ['connection', 'create', '--provider', 'alpha', '--base-url', 'https://x.test', '--api-key-stdin'],
    /missing required flag --wire/,
  ],
  ['missing --api-key-stdin', ['connection', 'create', ...connectionFlags], /missing required flag --api-key-stdin/],
  [
    'bedrock without a region',
    ['connection', 'create', '--provider', 'aws', '--wire', 'bedrock', '--models', 'anthropic.claude-x'],
    /--wire bedrock needs --region/,
  ],
  ['missing ID', ['member', 'disable'], /member disable: missing ID/],
  ['missing ID of a key', ['key', 'rotate'], /key rotate: missing ID/],
  ['empty ID', ['key', 'revoke', ' '], /ID must not be empty/],
  ['extra argument', ['member', 'list', 'everyone'], /unexpected argument 'everyone'/],
  ['second ID', ['connection', 'enable', 'con_1', 'con_2'], /unexpected argument 'con_2'/],
  ['fractional number', ['member', 'create', '--name', 'a', '--rpm', '1.5'], /--rpm expects a whole number.*'1.5'/],
  ['negative number', ['member', 'create', '--name', 'a', '--rpm=-1'], /--rpm expects a whole number.*'-1'/],
  ['negative number as a flag', ['member', 'create', '--name', 'a', '--concurrency', '-1'], /ambiguous/],
  ['zero requests per minute', ['key', 'create', '--member', 'm', '--rpm', '0'], /--rpm expects a whole number of 1/],
  ['word for a number', ['key', 'create', '--member', 'm', '--max-output', 'lots'], /--max-output expects a whole/],
  ['exponent', ['member', 'create', '--name', 'a', '--daily-tokens', '1e6'], /--daily-tokens expects a whole/],
  ['unsafe integer', ['member', 'create', '--name', 'a', '--rpm', '99999999999999999999'], /--rpm expects a whole/],
  ['impossible date', ['key', 'create', '--member', 'm', '--expires', '2026-02-30'], /--expires expects an ISO-8601/],
  ['word for a date', ['key', 'create', '--member', 'm', '--expires', 'tomorrow'], /--expires expects an ISO-8601/],
  ['date-time without zone', ['key', 'create', '--member', 'm', '--expires', '2026-03-01T12:00'], /--expires expects/],
  ['bad role', ['member', 'create', '--name', 'a', '--role', 'owner'], /--role expects one of admin, member/],
  ['holder role is not created here', ['member', 'create', '--name', 'a', '--role', 'holder'], /--role expects/],
  [
    'bad wire',
    [
      'connection',
      'create',
      '--provider',
      'alpha',
      '--wire',
      'grpc',
      '--base-url',
      'https://x.test',
      '--api-key-stdin',
    ],
    /--wire expects one of openai-chat, openai-responses, anthropic-messages, gemini, bedrock, got 'grpc'/,
  ],
  [
    'bad base URL',
    ['connection', 'create', '--provider', 'alpha', '--wire', 'gemini', '--base-url', 'ftp://x', '--api-key-stdin'],
    /--base-url expects an http/,
  ],
  ['model without provider', ['member', 'create', '--name', 'a', '--models', 'alpha-1'], /provider\/model/],
  [
    'a limit that is no number',
    ['connection', 'create', ...connectionFlags, '--models', 'acme-1:ctx=lots', '--api-key-stdin'],
    /--models: ctx= expects a whole number of tokens of 1 or more, got 'lots' in 'acme-1:ctx=lots'/,
  ],
  [
    'a limit of zero',
    ['connection', 'create', ...connectionFlags, '--models', 'acme-1:max=0', '--api-key-stdin'],
    /--models: max= expects a whole number/,
  ],
  [
    'a limit given twice',
    ['connection', 'create', ...connectionFlags, '--models', 'acme-1:max=1:max=2', '--api-key-stdin'],
    /--models: 'acme-1:max=1:max=2' gives max= twice/,
  ],
  [
    'an input kind that is none',
    ['connection', 'create', ...connectionFlags, '--models', 'acme-1:input=image+smell', '--api-key-stdin'],
    /--models: input= takes text, image, video, audio and file joined by \+, got 'smell' in 'acme-1:input=image\+smell'/,
  ],
  [
    'limits without a model',
    ['connection', 'create', ...connectionFlags, '--models', ':ctx=100', '--api-key-stdin'],
    /--models: ':ctx=100' names no model/,
  ],
  ['a test model without --generate', ['connection', 'test', 'con_1', '--model', 'm'], /--model needs --generate/],
  ['empty list item', ['key', 'create', '--member', 'm', '--providers', 'alpha,,beta'], /--providers has an empty/],
];

describe('command line errors', () => {
  it.each(usageErrors)('%s → exit 2', async (_label, argv, message) => {
    const fetch = vi.fn<typeof globalThis.fetch>();
    const run = await runInProcess(argv, { fetch });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stdout).toBe('');
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('environment and standard input errors', () => {
  it('refuses to run without GATEWAY_ADMIN_KEY', async () => {
    const run = await runInProcess(['member', 'list'], { env: {} });
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toBe(
      'gateway-admin member list: GATEWAY_ADMIN_KEY is not set; export the admin key of the gateway first\n',
    );
  });

  it('refuses a GATEWAY_URL that is not http(s)', async () => {
    const run = await runInProcess(['member', 'list'], {
      env: { GATEWAY_ADMIN_KEY: testAdminKey, GATEWAY_URL: 'gw:1' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/GATEWAY_URL must be an http/);
  });

  it('reports flag mistakes before a missing key', async () => {
    const run = await runInProcess(['member', 'create'], { env: {} });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/missing required flag --name/);
  });

  it.each([
    ['empty', ''],
    ['only whitespace', ' \n\t\n'],
  ])('refuses an %s credential on standard input', async (_label, stdin) => {
    const run = await runInProcess(['connection', 'create', ...connectionFlags, '--api-key-stdin'], { stdin });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/standard input holds no credential; refusing an empty one/);
  });

  it('refuses to read the credential from a terminal, where it would be echoed', async () => {
    const terminal: StandardInput = {
      isTTY: true,
      [Symbol.asyncIterator]: () => {
        throw new Error('a terminal must not be read');
      },
    };
    const run = await runInProcess(['connection', 'create', ...connectionFlags, '--api-key-stdin'], {
      stdin: terminal,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/from a pipe, not a terminal/);
  });
});

describe('help', () => {
  it.each([
    [['--help']],
    [['-h']],
    [['help']],
    [['help', 'member']],
    [['help', 'key', 'create']],
    [['member', '--help']],
    [['connection', 'create', '--help']],
    [['key', 'revoke', '-h']],
  ])('%j prints usage on stdout without needing the admin key', async (argv) => {
    const run = await runInProcess(argv, { env: {} });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Usage:/);
  });

  it('prints the overview with every command and the environment', async () => {
    const { stdout } = await runInProcess(['--help']);
    for (const words of ['member create', 'member suspend', 'key rotate', 'connection disable']) {
      expect(stdout).toContain(words);
    }
    expect(stdout).toContain('GATEWAY_URL');
    expect(stdout).toContain('GATEWAY_ADMIN_KEY');
  });

  it('prints exactly the synopses of the issue', async () => {
    const synopses = await Promise.all(
      ['member', 'key', 'connection'].map(async (group) => (await runInProcess(['help', group])).stdout),
    );
    expect(
      synopses
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('  gateway-admin'))
        .map((line) => line.trim()),
    ).toEqual([
      'gateway-admin member create --name N [--role admin|member] [--daily-tokens N] [--rpm N] [--concurrency N] [--max-output N] [--providers a,b] [--models p/m,...] [--json]',
      'gateway-admin member list [--limit N] [--cursor C] [--name TEXT] [--state active|disabled|suspended] [--json]',
      'gateway-admin member disable ID [--json]',
      'gateway-admin member enable ID [--json]',
      'gateway-admin member suspend ID [--json]',
      'gateway-admin member get ID [--json]',
      'gateway-admin member update ID --version N [--name N] [--role admin|member] [--daily-tokens N] [--rpm N] [--concurrency N] [--max-output N] [--providers a,b] [--models p/m,...] [--json]',
      'gateway-admin key create --member ID [--name N] [--expires ISO-8601] [--providers a,b] [--models p/m,...] [--rpm N] [--concurrency N] [--max-output N] [--json]',
      'gateway-admin key list [--member ID] [--limit N] [--cursor C] [--name TEXT] [--state active|revoked|expired] [--json]',
      'gateway-admin key revoke ID [--json]',
      'gateway-admin key rotate ID [--json]',
      'gateway-admin key update ID --version N [--name N] [--expires ISO-8601|never] [--rpm N] [--concurrency N] [--max-output N] [--providers a,b] [--models p/m,...] [--json]',
      'gateway-admin connection create --provider NAME --wire openai-chat|openai-responses|anthropic-messages|gemini|bedrock [--base-url URL] [--region REGION] [--models id[:ctx=N][:max=N][:input=image+video],...] [--upstream PREFIX] [--private-network] [--api-key-stdin] [--json]',
      'gateway-admin connection list [--limit N] [--cursor C] [--name TEXT] [--state enabled|disabled] [--json]',
      'gateway-admin connection test ID [--generate] [--model ID] [--json]',
      'gateway-admin connection enable ID [--json]',
      'gateway-admin connection disable ID [--json]',
      'gateway-admin connection update ID --version N [--models id[:ctx=N][:max=N][:input=image+video],...] [--base-url URL] [--api-key-stdin] [--json]',
    ]);
  });

  it('lists the flags of one command with their descriptions', async () => {
    const { stdout } = await runInProcess(['key', 'create', '--help']);
    expect(stdout).toMatch(/--member ID\s+member that owns the key \(required\)/);
    expect(stdout).toMatch(/--expires ISO-8601\s+expiry/);
    expect(stdout).toMatch(/--json\s+print the API's JSON answer/);
  });
});
