import { readFile } from 'node:fs/promises';
import { sendAdminRequest } from './admin-client.ts';
import { AdminRequestError, UsageError } from './cli-errors.ts';
import { commandTable } from './commands.ts';
import { readGatewayEnvironment, readGatewayUrl } from './gateway-environment.ts';
import { chooseCommand, type HelpTopic, parseCommandArguments } from './parse-arguments.ts';
import { readCredential, type StandardInput } from './read-credential.ts';
import { readStoredSession } from './stored-session.ts';
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
  /** Shows `login` the provider's page: opens a browser where one is configured; tests drive the address. */
  readonly openUrl?: (url: string) => unknown;
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
    if (argv[0] === 'bootstrap') {
      // Talks to AWS, not to the admin API, and is the CLI's one user of shared/: loaded only when it runs.
      scope = 'gateway-admin bootstrap';
      return await (await import('./bootstrap-command.ts')).runBootstrap(argv.slice(1), io);
    }
    if (argv[0] === 'login' || argv[0] === 'logout') {
      scope = `gateway-admin ${argv[0]}`;
      const signIn = await import('./sign-in-command.ts');
      return await (argv[0] === 'login' ? signIn.runLogin(argv.slice(1), io) : signIn.runLogout(argv.slice(1), io));
    }
    const choice = chooseCommand(argv, commandTable);
    if (choice.kind === 'help') return printHelp(choice.topic);
    scope = `gateway-admin ${choice.command.words.join(' ')}`;
    const commandArguments = parseCommandArguments(choice.command, choice.arguments);
    if (commandArguments.kind === 'help') return printHelp(commandArguments.topic);

    // The environment and standard input are read only once the command line is valid, so its errors come first.
    const gateway = readGatewayEnvironment(io.env, await readStoredSession(io.env, readGatewayUrl(io.env), new Date()));
    // Every request is built (and a file checked whole) before the first is sent, so a bad input sends nothing.
    const requests = await commandArguments.buildRequests({
      readCredential: () => readCredential(io.stdin),
      readTextFile,
    });
    const results: unknown[] = [];
    for (const request of requests) {
      try {
        results.push(await sendAdminRequest(request, { ...gateway, fetch: io.fetch }));
      } catch (error) {
        // Requests before this one were applied; saying how many lets the caller judge what to run again.
        if (error instanceof AdminRequestError && results.length > 0) {
          throw new AdminRequestError(
            `${error.message}; ${results.length} of ${requests.length} requests had succeeded before it`,
          );
        }
        throw error;
      }
    }
    // An operation done a piece per request: the last request again, while its answer asks for it and moves.
    const last = requests.at(-1);
    while (last && choice.command.repeat(results.at(-1), last)) {
      const previous = results.at(-1);
      io.stderr.write(choice.command.progress(previous));
      const next = await sendAdminRequest(last, { ...gateway, fetch: io.fetch });
      results[results.length - 1] = next;
      if (JSON.stringify(next) === JSON.stringify(previous)) break;
    }
    const result = choice.command.combine(results);
    // An export (CSV) is text already: printed as the gateway wrote it, with or without --json.
    const asJson = commandArguments.json && typeof result !== 'string';
    io.stdout.write(asJson ? `${JSON.stringify(result, null, 2)}\n` : choice.command.render(result));
    return choice.command.succeeded(result) ? exitCodes.done : exitCodes.requestFailed;
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

const fileErrorReasons: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'it is a folder',
};

/** Files are read only when the command line is valid; a missing or unreadable file is the caller's to fix (exit 2). */
async function readTextFile(path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : '';
    throw new UsageError(`cannot read ${path}: ${fileErrorReasons[code] ?? (code || String(error))}`);
  }
  try {
    // Fatal, so broken bytes are refused instead of being replaced by U+FFFD and sent on as if they were text.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${path} is not UTF-8 text`);
  }
}
