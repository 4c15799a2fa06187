import { getXRayTraceIdFromEnv, isDevMode } from '@aws-lambda-powertools/commons/utils/env';
import { Logger } from '@aws-lambda-powertools/logger';
import type { ConstructorOptions } from '@aws-lambda-powertools/logger/types';

/** Powertools' INFO threshold (`LogLevelThreshold.INFO`). */
const infoThreshold = 12;

/** A value a flat log line carries: what Powertools prints of it is what `JSON.stringify` makes of it. */
export type FlatValue = string | number | boolean | null | undefined;

/**
 * The Powertools logger, plus `infoFlat`: the line `info(message, fields)` prints, byte for byte, for fields whose
 * values are all strings, numbers, booleans or nothing — built with one plain `JSON.stringify` of the base
 * attributes and each field's value, instead of Powertools' generic path (a recursive merge of the attributes, a
 * copy without the empty ones, and a `JSON.stringify` whose replacer runs per key). The settled-request line is
 * written once per request, and the generic path cost about a tenth of a request's CPU one at a time.
 *
 * Whatever the general path would print differently goes through it unchanged: a level above INFO prints nothing;
 * the development mode (`POWERTOOLS_DEV`: indented, on the global console), a log buffer, or any persistent or
 * appended key (which may hold any value, and may share a field's name) is handed to `info` as is.
 * test/observability/flat-line-logger.test.ts holds the two paths to the same bytes.
 */
export class FlatLineLogger extends Logger {
  /**
   * Lines this logger hands to the general path: a log buffer, or the development mode, which Powertools reads once,
   * when it builds the logger's console (reading it per line cost about 8 µs).
   */
  readonly #general: boolean;
  /**
   * Whether the logger ever carried more than Powertools' own attributes: a Lambda context or a key, persistent or
   * not. Until then a line's attributes are known without asking Powertools' attribute stores (each ask read the
   * environment); after, each line asks them, and prints by the general path whatever is not plain.
   */
  #attributed: boolean;

  constructor(options: ConstructorOptions = {}) {
    super(options);
    this.#general =
      options.logBufferOptions?.enabled === true ||
      isDevMode() ||
      options.logFormatter !== undefined ||
      options.logRecordOrder !== undefined ||
      options.jsonReplacerFn !== undefined;
    // Persistent keys given here were appended while Powertools' constructor ran, before this logger's fields existed.
    this.#attributed = hasKeys(options.persistentKeys) || hasKeys(options.persistentLogAttributes);
  }

  // Each of these is also called by Powertools' own constructor, before this class's fields exist (hence the
  // `in` check); the constructor above covers what it appended.
  override addContext(...context: Parameters<Logger['addContext']>): void {
    if (#attributed in this) this.#attributed = true;
    super.addContext(...context);
  }

  override appendKeys(attributes: Parameters<Logger['appendKeys']>[0]): void {
    if (#attributed in this) this.#attributed = true;
    super.appendKeys(attributes);
  }

  override appendPersistentKeys(attributes: Parameters<Logger['appendPersistentKeys']>[0]): void {
    if (#attributed in this) this.#attributed = true;
    super.appendPersistentKeys(attributes);
  }

  override setPersistentLogAttributes(attributes: Parameters<Logger['setPersistentLogAttributes']>[0]): void {
    if (#attributed in this) this.#attributed = true;
    super.setPersistentLogAttributes(attributes);
  }

  infoFlat(message: string, fields: Readonly<Record<string, FlatValue>>): void {
    if (this.level > infoThreshold) return;
    if (this.#general) {
      this.info(message, fields);
      return;
    }
    let line: string;
    if (this.#attributed) {
      const item = this.createAndPopulateLogItem(infoThreshold, message, []);
      item.prepareForPrint();
      const base = item.getAttributes();
      // Only Powertools' own attributes (level, message, timestamp, service, Lambda context, sampling rate, trace
      // id): strings and numbers. Anything else came from an appended key: the general path prints it.
      for (const name in base) {
        if (!powertoolsKeys.has(name)) {
          this.info(message, fields);
          return;
        }
      }
      line = JSON.stringify(base).slice(0, -1);
    } else {
      line = this.#plainBase(message);
    }
    for (const name in fields) {
      const value = fields[name];
      if (!isPrinted(value)) continue;
      line += `,${JSON.stringify(name)}:${JSON.stringify(value)}`;
    }
    (this as unknown as { console: Console }).console.info(`${line}}`);
  }

  /**
   * The line's base attributes, without its closing brace, as Powertools makes them for a logger with no Lambda
   * context and no keys: `createAndPopulateLogItem` and `PowertoolsLogFormatter.formatAttributes` (level, message,
   * timestamp in the formatter's time zone, service, sampling rate, X-Ray trace id, in that order), empty values
   * dropped as `LogItem.removeEmptyKeys` drops them.
   */
  #plainBase(message: string): string {
    const internals = this as unknown as {
      powertoolsLogData: { serviceName?: string; sampleRateValue?: number; xRayTraceId?: string };
      logFormatter: { formatTimestamp(date: Date): string };
    };
    const data = { xRayTraceId: getXRayTraceIdFromEnv(), ...internals.powertoolsLogData };
    let line = '{"level":"INFO"';
    if (isPrinted(message)) line += `,"message":${JSON.stringify(message)}`;
    line += `,"timestamp":${JSON.stringify(internals.logFormatter.formatTimestamp(new Date()))}`;
    if (isPrinted(data.serviceName)) line += `,"service":${JSON.stringify(data.serviceName)}`;
    if (isPrinted(data.sampleRateValue)) line += `,"sampling_rate":${JSON.stringify(data.sampleRateValue)}`;
    if (isPrinted(data.xRayTraceId)) line += `,"xray_trace_id":${JSON.stringify(data.xRayTraceId)}`;
    return line;
  }
}

/** Powertools drops empty values (undefined, null, '') from a line (`LogItem.removeEmptyKeys`). */
const isPrinted = (value: unknown) => value !== undefined && value !== null && value !== '';

const hasKeys = (keys: object | undefined) => keys !== undefined && Object.keys(keys).length > 0;

/** The attributes Powertools' formatter writes of its own (PowertoolsLogFormatter.formatAttributes). */
const powertoolsKeys = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'sampling_rate',
  'xray_trace_id',
  'tenant_id',
]);
