import type { Command } from './command-definition.ts';
import { defaultGatewayUrl } from './gateway-environment.ts';
import type { HelpTopic } from './parse-arguments.ts';

const globalFlags: readonly (readonly [flag: string, description: string])[] = [
  ['--json', "print the API's JSON answer, one document on stdout"],
  ['-h, --help', 'show help'],
];

/** Help is generated from the command table, so it cannot drift from what the parser accepts. */
export function renderHelp(topic: HelpTopic, commands: readonly Command[]): string {
  switch (topic.kind) {
    case 'overview':
      return renderOverview(commands);
    case 'group':
      return `Usage:\n${topic.commands.map((command) => `  ${synopsis(command)}\n`).join('')}\n${footer(topic.group)}`;
    case 'command':
      return renderCommandHelp(topic.command);
    default: {
      const unknownTopic: never = topic;
      throw new Error(`no help for ${String(unknownTopic)}`);
    }
  }
}

/** The usage line, e.g. `gateway-admin member disable ID`; optional flags in brackets. */
export function synopsis(command: Command): string {
  const flags = Object.entries(command.flags).map(([name, flag]) => {
    const text = flag.valueName === undefined ? `--${name}` : `--${name} ${flag.valueName}`;
    return flag.required ? text : `[${text}]`;
  });
  return ['gateway-admin', ...command.words, ...command.operands, ...flags, '[--json]'].join(' ');
}

function renderOverview(commands: readonly Command[]): string {
  const commandRows = indentedPairs(commands.map((command) => [command.words.join(' '), command.summary]));
  return [
    'Usage: gateway-admin <command> [ID] [flags]\n',
    '\nManages the members, keys and provider connections of a model gateway through its admin API, and imports\n' +
      'usage records of the earlier engine (0.1).\n',
    `\nCommands:\n${commandRows}`,
    '\nOn AWS, once per deployed stage (uses your AWS credentials, not the admin key):\n',
    indentedPairs([['bootstrap --stage NAME [--region R]', 'create the first administrator and print its key']]),
    `\nFlags of every command:\n${indentedPairs(globalFlags)}`,
    '\nEnvironment:\n',
    indentedPairs([
      ['GATEWAY_URL', `address of the gateway (default ${defaultGatewayUrl})`],
      ['GATEWAY_ADMIN_KEY', 'admin key, sent as a bearer token (required except for help)'],
    ]),
    '\nExit codes: 0 done, 1 the gateway refused, failed or could not be reached, 2 bad command line or environment.\n',
    "\nRun 'gateway-admin help <command>' (e.g. 'help member create') for the flags of a command.\n",
  ].join('');
}

function renderCommandHelp(command: Command): string {
  const flagRows = Object.entries(command.flags).map(([name, flag]): [string, string] => [
    flag.valueName === undefined ? `--${name}` : `--${name} ${flag.valueName}`,
    flag.required ? `${flag.description} (required)` : flag.description,
  ]);
  return [
    `Usage: ${synopsis(command)}\n`,
    `\n${command.summary}.\n`,
    `\nFlags:\n${indentedPairs([...flagRows, ...globalFlags])}`,
  ].join('');
}

function footer(group: string): string {
  return `Run 'gateway-admin help ${group} <command>' for the flags of a command.\n`;
}

function indentedPairs(pairs: readonly (readonly [string, string])[]): string {
  const width = Math.max(...pairs.map(([left]) => left.length));
  return pairs.map(([left, right]) => `  ${left.padEnd(width)}  ${right}\n`).join('');
}
