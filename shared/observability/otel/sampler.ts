import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import type { SamplerName } from '../../config/telemetry-config.ts';

/** `OTEL_TRACES_SAMPLER` (with `OTEL_TRACES_SAMPLER_ARG` as the ratio), as the SDK's specification names them. */
export function createSampler(setting: { name: SamplerName; ratio: number }): Sampler {
  switch (setting.name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(setting.ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(setting.ratio) });
    default: {
      const unknown: never = setting.name;
      throw new Error(`unknown sampler ${String(unknown)}`);
    }
  }
}
