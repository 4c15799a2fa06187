import { sendAdminRequest } from './admin-client.ts';
import { AdminRequestError, UsageError } from './cli-errors.ts';
import { commandTable } from './commands.ts';
import { readGatewayEnvironment } from './gateway-environment.ts';
import { chooseCommand, type HelpTopic, parseCommandArguments } from './parse-arguments.ts';
import { readCredential, type StandardInput } from './read-credential.ts';
import { renderHelp } from './usage-text.ts';

export interface TextOutput {
  write(text: string): unknown;
}

/** Everything the CLI touches outside itself, passed in so tests run it in-process without spawning. */
export interface CliIo {
  readonly stdout: TextOutput;
  readonly stderr: TextOutput;
  readonly stdin: StandardInput;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fetch: typeof globalThis.fetch;
}

export const exitCodes = { done: 0, requestFailed: 1, usage: 2 } as const;

/**
 * Runs one command and returns the process exit code: 0 done, 1 the gateway refused, failed or was unreachable,
 * 2 a bad command line or environment (then nothing was sent). Any other error is a bug and propagates.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  // Grows to name the command once it is known, so every one-line error says which command it belongs to.
  let scope = 'gateway-admin';
  try {
    const choice = chooseCommand(argv, commandTable);
    if (choice.kind === 'help') return printHelp(choice.topic);
    scope = `gateway-admin ${choice.command.words.join(' ')}`;
    const commandArguments = parseCommandArguments(choice.command, choice.arguments);
    if (commandArguments.kind === 'help') return printHelp(commandArguments.topic);

    // The environment and standard input are read only once the command line is valid, so its errors come first.
    const gateway = readGatewayEnvironment(io.env);
    const request = await commandArguments.buildRequest({ readCredential: () => readCredential(io.stdin) });
    const result = await sendAdminRequest(request, { ...gateway, fetch: io.fetch });
    io.stdout.write(commandArguments.json ? `${JSON.stringify(result, null, 2)}\n` : choice.command.render(result));
    return exitCodes.done;
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof AdminRequestError)) throw error;
    io.stderr.write(`${scope}: ${error.message}\n`);
    return error instanceof UsageError ? exitCodes.usage : exitCodes.requestFailed;
  }

  function printHelp(topic: HelpTopic): number {
    io.stdout.write(renderHelp(topic, commandTable));
    return exitCodes.done;
  }
}
