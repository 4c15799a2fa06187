import * as z from '../shared/validation/zod.ts';
import { UsageError } from './cli-errors.ts';

/**
 * What `util.parseArgs` saw of one flag: every occurrence, in order. All flags are declared `multiple` so that a
 * repeated flag can be refused (single values) or merged (lists) instead of the last one silently winning.
 */
export type FlagOccurrences = readonly (string | boolean)[];

export interface FlagDefinition<Value> {
  /** How `util.parseArgs` reads the flag: a switch, or a flag followed by a value. */
  readonly type: 'string' | 'boolean';
  /** Placeholder in usage lines, e.g. `N` in `--rpm N`; `undefined` for switches. */
  readonly valueName: string | undefined;
  readonly description: string;
  readonly required: boolean;
  /** Turns the occurrences into the value the request builder receives; throws `UsageError` on a bad value. */
  readonly read: (occurrences: FlagOccurrences, flag: string) => Value;
}

export type FlagMap = Readonly<Record<string, FlagDefinition<unknown>>>;

function stringOccurrences(occurrences: FlagOccurrences): string[] {
  return occurrences.filter((occurrence): occurrence is string => typeof occurrence === 'string');
}

function singleValueFlag<Value>(
  valueName: string,
  description: string,
  convert: (value: string, flag: string) => Value,
): FlagDefinition<Value | undefined> {
  return {
    type: 'string',
    valueName,
    description,
    required: false,
    read(occurrences, flag) {
      const values = stringOccurrences(occurrences);
      const [first] = values;
      if (first === undefined) return undefined;
      if (values.length > 1) throw new UsageError(`--${flag} is given more than once`);
      const value = first.trim();
      // `--name=` gets past parseArgs as an empty string; an empty value is never what the caller meant.
      if (value === '') throw new UsageError(`--${flag} needs a value`);
      return convert(value, flag);
    },
  };
}

export function textFlag(valueName: string, description: string): FlagDefinition<string | undefined> {
  return singleValueFlag(valueName, description, (value) => value);
}

/** `minimum` is 1 for limits where 0 would block every request: disabling or revoking says that plainly. */
export function integerFlag(
  valueName: string,
  description: string,
  minimum: 0 | 1 = 0,
): FlagDefinition<number | undefined> {
  return singleValueFlag(valueName, description, (value, flag) => {
    // Number() would also take '1e3', '0x10', '1.0' and '-0'; a limit is a plain count, so only digits pass.
    const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(number) || number < minimum) {
      throw new UsageError(`--${flag} expects a whole number of ${minimum} or more, got '${value}'`);
    }
    return number;
  });
}

/** An amount such as USD holdings: a plain decimal, never negative. */
export function amountFlag(valueName: string, description: string): FlagDefinition<number | undefined> {
  return singleValueFlag(valueName, description, (value, flag) => {
    const number = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isFinite(number))
      throw new UsageError(`--${flag} expects an amount such as 150 or 99.5, got '${value}'`);
    return number;
  });
}

export function choiceFlag<const Choice extends string>(
  choices: readonly Choice[],
  description: string,
): FlagDefinition<Choice | undefined> {
  return singleValueFlag(choices.join('|'), description, (value, flag) => {
    const choice = choices.find((candidate) => candidate === value);
    if (choice === undefined) throw new UsageError(`--${flag} expects one of ${choices.join(', ')}, got '${value}'`);
    return choice;
  });
}

// A date-time without a zone would name a different instant on each machine, so a zone (Z or offset) is required.
const isoDateOrDateTime = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);

/** Sent as a UTC ISO-8601 string; a bare date means midnight UTC of that day. */
export function dateTimeFlag(valueName: string, description: string): FlagDefinition<string | undefined> {
  return singleValueFlag(valueName, description, (value, flag) => {
    if (!isoDateOrDateTime.safeParse(value).success) {
      throw new UsageError(
        `--${flag} expects an ISO-8601 date or date-time with a zone (2026-03-01 or 2026-03-01T12:00:00Z), got '${value}'`,
      );
    }
    return new Date(value).toISOString();
  });
}

/** A UTC calendar day, `YYYY-MM-DD`, that exists. */
export function dayFlag(valueName: string, description: string): FlagDefinition<string | undefined> {
  return singleValueFlag(valueName, description, (value, flag) => {
    if (!z.iso.date().safeParse(value).success) {
      throw new UsageError(`--${flag} expects a UTC day as YYYY-MM-DD (2026-03-01), got '${value}'`);
    }
    return value;
  });
}

export function httpUrlFlag(valueName: string, description: string): FlagDefinition<string | undefined> {
  return singleValueFlag(valueName, description, (value, flag) => {
    if (!isHttpUrl(value)) throw new UsageError(`--${flag} expects an http:// or https:// URL, got '${value}'`);
    return value;
  });
}

export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * A comma-separated list. Repeating the flag adds to the list, since `--models a/x --models b/y` plainly means
 * both. `checkItem` returns a reason when an item is malformed.
 */
export function listFlag(
  valueName: string,
  description: string,
  checkItem: (item: string) => string | undefined = () => undefined,
): FlagDefinition<string[] | undefined> {
  return {
    type: 'string',
    valueName,
    description,
    required: false,
    read(occurrences, flag) {
      const values = stringOccurrences(occurrences);
      if (values.length === 0) return undefined;
      const items = values.flatMap((value) => value.split(',')).map((item) => item.trim());
      for (const item of items) {
        if (item === '') throw new UsageError(`--${flag} has an empty item in '${values.join(',')}'`);
        const problem = checkItem(item);
        if (problem !== undefined) throw new UsageError(`--${flag}: ${problem}, got '${item}'`);
      }
      return [...new Set(items)];
    },
  };
}

/** A model a connection serves, as the admin API takes it: its id, or its id with its limits in tokens. */
export type ModelDeclaration =
  | string
  | { id: string; contextWindow?: number; maxOutput?: number; inputModalities?: string[] };

const limitSuffix = /:(ctx|max|input)=([^:]*)$/;

/** What `:input=` may name, joined by `+`: the media a model takes besides text (the gateway checks them again). */
const mediaNames = new Set(['text', 'image', 'video', 'audio', 'file']);

/**
 * Models with optional limits: `acme-1:ctx=200000:max=8192:input=image+video,acme-2`. Only `:ctx=N`, `:max=N` and
 * `:input=KINDS` at the end of an item are limits, so an id that holds colons itself (`llama3:8b`,
 * `ft:gpt-4o:org:x`) stays whole.
 */
export function modelsFlag(valueName: string, description: string): FlagDefinition<ModelDeclaration[] | undefined> {
  const items = listFlag(valueName, description);
  return {
    ...items,
    read(occurrences, flag) {
      const declarations = (items.read(occurrences, flag) ?? []).map((item) => readModelDeclaration(item, flag));
      return declarations.length === 0 ? undefined : declarations;
    },
  };
}

function readModelDeclaration(item: string, flag: string): ModelDeclaration {
  let id = item;
  const limits: { contextWindow?: number; maxOutput?: number; inputModalities?: string[] } = {};
  for (let suffix = limitSuffix.exec(id); suffix; suffix = limitSuffix.exec(id)) {
    const [whole, name, value = ''] = suffix;
    const field = name === 'ctx' ? 'contextWindow' : name === 'max' ? 'maxOutput' : 'inputModalities';
    if (limits[field] !== undefined) throw new UsageError(`--${flag}: '${item}' gives ${name}= twice`);
    id = id.slice(0, -whole.length);
    if (field === 'inputModalities') {
      const kinds = value.split('+');
      const unknown = kinds.find((kind) => !mediaNames.has(kind));
      if (unknown !== undefined) {
        throw new UsageError(
          `--${flag}: input= takes text, image, video, audio and file joined by +, got '${unknown}' in '${item}'`,
        );
      }
      limits.inputModalities = kinds;
      continue;
    }
    const tokens = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(tokens) || tokens < 1) {
      throw new UsageError(
        `--${flag}: ${name}= expects a whole number of tokens of 1 or more, got '${value}' in '${item}'`,
      );
    }
    limits[field] = tokens;
  }
  if (id === '') throw new UsageError(`--${flag}: '${item}' names no model`);
  return Object.keys(limits).length === 0 ? id : { id, ...limits };
}

/** Items of the form provider/model; the model part may itself contain slashes. */
export function checkProviderModel(item: string): string | undefined {
  return /^[^/]+\/.+$/.test(item) ? undefined : 'expects provider/model items';
}

/**
 * A switch that must be present. It exists so that a choice with consequences (such as where a secret comes
 * from) is spelled out on the command line rather than implied.
 */
export function requiredSwitch(description: string): FlagDefinition<true> {
  return {
    type: 'boolean',
    valueName: undefined,
    description,
    required: true,
    read(occurrences, flag) {
      if (occurrences.length === 0) throw new UsageError(`missing required flag --${flag}`);
      return true;
    },
  };
}

/** A switch that may be given or not, such as one that widens what a connection may reach. */
export function optionalSwitch(description: string): FlagDefinition<boolean> {
  return {
    type: 'boolean',
    valueName: undefined,
    description,
    required: false,
    read: (occurrences) => occurrences.length > 0,
  };
}

export function required<Value>(flag: FlagDefinition<Value | undefined>): FlagDefinition<Value> {
  return {
    ...flag,
    required: true,
    read(occurrences, name) {
      const value = flag.read(occurrences, name);
      if (value === undefined) {
        throw new UsageError(
          `missing required flag --${name}${flag.valueName === undefined ? '' : ` ${flag.valueName}`}`,
        );
      }
      return value;
    },
  };
}
