import type { z } from 'zod';
import { AdminRequestError, UsageError } from './cli-errors.ts';
import type { FlagDefinition, FlagMap, FlagOccurrences } from './flag-definitions.ts';

/** One call of the admin API, as the command line describes it. */
export interface AdminRequest {
  readonly method: 'GET' | 'POST';
  /** Below the gateway address, e.g. `/admin/v1/members`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  /** Serialised as JSON; `undefined` sends no body. */
  readonly body?: unknown;
}

/** What a request builder may ask of the outside world, so builders stay free of process state. */
export interface RequestContext {
  /** The provider credential from standard input, trimmed and non-empty. */
  readCredential(): Promise<string>;
}

type FlagValues<Flags extends FlagMap> = {
  readonly [Name in keyof Flags]: Flags[Name] extends FlagDefinition<infer Value> ? Value : never;
};
type OperandValues<Operands extends readonly string[]> = { readonly [Name in Operands[number]]: string };

export interface CommandInput<Flags extends FlagMap, Operands extends readonly string[]> extends RequestContext {
  readonly flags: FlagValues<Flags>;
  readonly operands: OperandValues<Operands>;
}

/** One entry of the command table: words → flags → request builder → renderer. */
export interface CommandSpec<Flags extends FlagMap, Operands extends readonly string[], Result> {
  /** The words that name the command, e.g. `['member', 'create']`. */
  readonly words: readonly [group: string, action: string];
  readonly summary: string;
  /** Names of the positional arguments after the words, e.g. `['ID']`. */
  readonly operands: Operands;
  /** Keyed by the flag as typed, without dashes, e.g. `'daily-tokens'`. */
  readonly flags: Flags;
  readonly buildRequest: (input: CommandInput<Flags, Operands>) => AdminRequest | Promise<AdminRequest>;
  /** Tolerant schema of the successful answer: only what `render` reads. */
  readonly result: z.ZodType<Result>;
  /** The readable form; `--json` prints the answer as received instead. */
  readonly render: (result: Result) => string;
}

/** A command with its types closed over, so commands of different shapes fit in one table. */
export interface Command {
  readonly words: readonly [group: string, action: string];
  readonly summary: string;
  readonly operands: readonly string[];
  readonly flags: FlagMap;
  /** Checks flags and operands (throwing `UsageError`) and returns the builder, which runs once the rest is ready. */
  prepare(
    occurrences: Readonly<Record<string, FlagOccurrences>>,
    operands: readonly string[],
  ): (context: RequestContext) => Promise<AdminRequest>;
  /** Throws `AdminRequestError` when the answer lacks what the readable form needs. */
  render(result: unknown): string;
}

/** Flags every command takes; a command may not define its own under these names. */
export const globalFlagNames = ['json', 'help'] as const;

export function defineCommand<Flags extends FlagMap, const Operands extends readonly string[], Result>(
  spec: CommandSpec<Flags, Operands, Result>,
): Command {
  for (const name of globalFlagNames) {
    if (name in spec.flags) throw new Error(`${spec.words.join(' ')} may not define the global flag --${name}`);
  }
  return {
    words: spec.words,
    summary: spec.summary,
    operands: spec.operands,
    flags: spec.flags,
    prepare(occurrences, operands) {
      const flags = readFlags(spec.flags, occurrences);
      const operandValues = readOperands(spec.operands, operands);
      return async (context) =>
        spec.buildRequest({ flags, operands: operandValues, readCredential: context.readCredential });
    },
    render(result) {
      const parsed = spec.result.safeParse(result);
      if (!parsed.success) {
        const [issue] = parsed.error.issues;
        const where = issue?.path.length ? ` at ${issue.path.map(String).join('.')}` : '';
        throw new AdminRequestError(
          `the gateway's answer has an unexpected shape${where}: ${issue?.message ?? 'invalid'} (use --json to see it)`,
        );
      }
      return spec.render(parsed.data);
    },
  };
}

function readFlags<Flags extends FlagMap>(
  flags: Flags,
  occurrences: Readonly<Record<string, FlagOccurrences>>,
): FlagValues<Flags> {
  const values: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(flags)) values[name] = flag.read(occurrences[name] ?? [], name);
  // Each value came from its own definition's `read`, which is exactly what FlagValues describes per key.
  return values as FlagValues<Flags>;
}

function readOperands<Operands extends readonly string[]>(
  names: Operands,
  given: readonly string[],
): OperandValues<Operands> {
  const extra = given[names.length];
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const values: Record<string, string> = {};
  names.forEach((name, index) => {
    const value = given[index]?.trim();
    if (value === undefined) throw new UsageError(`missing ${name}`);
    if (value === '') throw new UsageError(`${name} must not be empty`);
    values[name] = value;
  });
  // Every name of `names` was assigned above, which is exactly what OperandValues describes.
  return values as OperandValues<Operands>;
}
