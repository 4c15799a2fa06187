import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './cli-errors.ts';
import type { AdminRequest, Command, RequestContext } from './command-definition.ts';
import type { FlagOccurrences } from './flag-definitions.ts';

export type HelpTopic =
  | { readonly kind: 'overview' }
  | { readonly kind: 'group'; readonly group: string; readonly commands: readonly Command[] }
  | { readonly kind: 'command'; readonly command: Command };

export type CommandChoice =
  | { readonly kind: 'help'; readonly topic: HelpTopic }
  | { readonly kind: 'command'; readonly command: Command; readonly arguments: readonly string[] };

export type CommandArguments =
  | { readonly kind: 'help'; readonly topic: HelpTopic }
  | {
      readonly kind: 'run';
      readonly json: boolean;
      readonly buildRequests: (context: RequestContext) => Promise<readonly AdminRequest[]>;
    };

const overviewHint = "run 'gateway-admin --help' for the commands";

/** The two leading words pick the command (like git), since which flags exist depends on the command. */
export function chooseCommand(argv: readonly string[], commands: readonly Command[]): CommandChoice {
  const [first, ...rest] = argv;
  if (first === undefined) throw new UsageError(`missing command; ${overviewHint}`);
  if (first === 'help' || isHelpFlag(first)) return { kind: 'help', topic: findHelpTopic(rest, commands) };
  if (first.startsWith('-')) throw new UsageError(`expected a command before '${first}'; ${overviewHint}`);

  const group = commandsOfGroup(first, commands);
  const [action, ...commandArguments] = rest;
  if (action === undefined) throw new UsageError(`'${first}' needs one of: ${actionsOf(group)}`);
  if (isHelpFlag(action)) return { kind: 'help', topic: { kind: 'group', group: first, commands: group } };
  return { kind: 'command', command: commandOfGroup(first, action, group), arguments: commandArguments };
}

/**
 * Reads the operands and flags after the command's words with `util.parseArgs` in strict mode, so unknown flags,
 * missing values and values given to switches are refused there; the command's flag table then checks values.
 */
export function parseCommandArguments(command: Command, commandArguments: readonly string[]): CommandArguments {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...commandArguments],
      options: parseArgsOptions(command),
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    if (isParseArgsError(error)) throw new UsageError(`${oneLine(error.message)}; see --help`);
    throw error;
  }
  const { values, positionals } = parsed;
  if (values['help'] === true) return { kind: 'help', topic: { kind: 'command', command } };
  const occurrences: Record<string, FlagOccurrences> = {};
  for (const name of Object.keys(command.flags)) {
    const value = values[name];
    if (Array.isArray(value)) occurrences[name] = value;
  }
  return { kind: 'run', json: values['json'] === true, buildRequests: command.prepare(occurrences, positionals) };
}

function findHelpTopic(words: readonly string[], commands: readonly Command[]): HelpTopic {
  const [groupName, action, extra] = words;
  if (groupName === undefined) return { kind: 'overview' };
  const group = commandsOfGroup(groupName, commands);
  if (action === undefined) return { kind: 'group', group: groupName, commands: group };
  const command = commandOfGroup(groupName, action, group);
  if (extra !== undefined) throw new UsageError(`help takes a command, not '${words.join(' ')}'`);
  return { kind: 'command', command };
}

function commandsOfGroup(groupName: string, commands: readonly Command[]): Command[] {
  const group = commands.filter((command) => command.words[0] === groupName);
  if (group.length === 0) {
    const groups = [...new Set(commands.map((command) => command.words[0]))].join(', ');
    throw new UsageError(`unknown command '${groupName}'; commands: ${groups}`);
  }
  return group;
}

function commandOfGroup(groupName: string, action: string, group: readonly Command[]): Command {
  const command = group.find((candidate) => candidate.words[1] === action);
  if (command === undefined) {
    throw new UsageError(`unknown command '${groupName} ${action}'; '${groupName}' takes: ${actionsOf(group)}`);
  }
  return command;
}

function actionsOf(group: readonly Command[]): string {
  return group.map((command) => command.words[1]).join(', ');
}

function isHelpFlag(argument: string): boolean {
  return argument === '--help' || argument === '-h';
}

function parseArgsOptions(command: Command): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = {
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, flag] of Object.entries(command.flags)) options[name] = { type: flag.type, multiple: true };
  return options;
}

function isParseArgsError(error: unknown): error is Error {
  return (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('ERR_PARSE_ARGS_')
  );
}

/** Some parseArgs messages span lines; the CLI promises one line per error. */
function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').replace(/\.$/, '');
}
