import type { TelemetrySettings } from '../config/telemetry-config.ts';
import type { TelemetryPort } from './request-trace.ts';

/** What the OpenTelemetry module (otel/otel-telemetry.ts) exports; hosts say where it is loaded from. */
export interface TelemetryModule {
  createOtelTelemetry(settings: TelemetrySettings, version: string): TelemetryPort;
}

/** The gateway's version on its spans and metrics (the instrumentation scope). */
export const gatewayVersion = '0.1.0';

/**
 * The telemetry of a process: nothing at all when telemetry is off (the module is never loaded, so it costs neither
 * memory nor start-up time), else the OpenTelemetry implementation, imported once. The host gives the import: the
 * local host the source module, a Lambda function the file bundled beside its entry (infra/telemetry-bundle.ts), so
 * no function's own bundle carries the SDK.
 */
export async function loadTelemetry(
  settings: TelemetrySettings | undefined,
  importModule: () => Promise<TelemetryModule>,
): Promise<TelemetryPort | undefined> {
  if (settings === undefined) return undefined;
  const module = await importModule();
  return module.createOtelTelemetry(settings, gatewayVersion);
}
