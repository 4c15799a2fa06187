import type * as z from '../shared/validation/zod.ts';
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
  /** `text/csv`: the answer is an export, returned as its text rather than parsed as JSON. */
  readonly accept?: 'text/csv';
}

/** What a request builder may ask of the outside world, so builders stay free of process state. */
export interface RequestContext {
  /** The provider credential from standard input, trimmed and non-empty. */
  readCredential(): Promise<string>;
  /** A file named on the command line, as UTF-8 text; one that cannot be read is a `UsageError`. */
  readTextFile(path: string): Promise<string>;
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
  /**
   * One request, or several sent in order (an import too large for one body). Several need `combine`; if one of
   * them fails, those before it have been applied, so such a command must be safe to run again.
   */
  readonly buildRequest: (
    input: CommandInput<Flags, Operands>,
  ) => AdminRequest | readonly AdminRequest[] | Promise<AdminRequest | readonly AdminRequest[]>;
  /** Tolerant schema of the successful answer: only what `render` reads. */
  readonly result: z.ZodMiniType<Result>;
  /** How the answers of several requests add up to the one answer that is printed. */
  readonly combine?: (results: readonly Result[]) => Result;
  /**
   * For an operation the gateway does a bounded piece at a time: whether this answer asks for the (last) request to
   * be sent again. The CLI repeats it until the answer says no, writing `progress` of each answer but the last to
   * standard error, and stops as well when an answer is the same as the one before (nothing moved).
   */
  readonly repeatWhile?: (result: Result, request: AdminRequest) => boolean;
  readonly progress?: (result: Result) => string;
  /** The readable form; `--json` prints the answer as received instead. */
  readonly render: (result: Result) => string;
  /**
   * Whether the answer reports success, for an answer that can report a failure as data (a connection test): the
   * CLI prints it either way, and exits 1 when it does not.
   */
  readonly succeeded?: (result: Result) => boolean;
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
  ): (context: RequestContext) => Promise<readonly AdminRequest[]>;
  /** One answer from the answers of every request sent; a single answer is returned as received. */
  combine(results: readonly unknown[]): unknown;
  /** Whether to send `request` again after this answer to it (`CommandSpec.repeatWhile`). */
  repeat(result: unknown, request: AdminRequest): boolean;
  /** What to tell the person waiting about an answer that is not the last; empty when nothing. */
  progress(result: unknown): string;
  /** Throws `AdminRequestError` when the answer lacks what the readable form needs. */
  render(result: unknown): string;
  /** Whether the (combined) answer reports success; true unless the command says how to tell. */
  succeeded(result: unknown): boolean;
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
      return async (context) => {
        const built = await spec.buildRequest({
          flags,
          operands: operandValues,
          readCredential: context.readCredential,
          readTextFile: context.readTextFile,
        });
        const requests = isRequestList(built) ? built : [built];
        if (requests.length !== 1 && !spec.combine) {
          throw new Error(`${spec.words.join(' ')} built ${requests.length} requests but cannot combine their answers`);
        }
        return requests;
      };
    },
    combine(results) {
      if (results.length === 1) return results[0];
      if (!spec.combine) throw new Error(`${spec.words.join(' ')} cannot combine ${results.length} answers`);
      return spec.combine(results.map((result) => parseResult(spec.result, result)));
    },
    repeat(result, request) {
      return spec.repeatWhile?.(parseResult(spec.result, result), request) ?? false;
    },
    progress(result) {
      return spec.progress?.(parseResult(spec.result, result)) ?? '';
    },
    render(result) {
      return spec.render(parseResult(spec.result, result));
    },
    succeeded(result) {
      return spec.succeeded ? spec.succeeded(parseResult(spec.result, result)) : true;
    },
  };
}

function isRequestList(built: AdminRequest | readonly AdminRequest[]): built is readonly AdminRequest[] {
  return Array.isArray(built);
}

function parseResult<Result>(schema: z.ZodMiniType<Result>, result: unknown): Result {
  const parsed = schema.safeParse(result);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const where = issue?.path.length ? ` at ${issue.path.map(String).join('.')}` : '';
    throw new AdminRequestError(
      `the gateway's answer has an unexpected shape${where}: ${issue?.message ?? 'invalid'} (use --json to see it)`,
    );
  }
  return parsed.data;
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
