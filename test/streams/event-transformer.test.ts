import { describe, expect, it } from 'vitest';
import { composeTransformers, type EventTransformer, runTransformer } from '../../shared/streams/event-transformer.ts';
import { transformEvents } from '../support/sse-fixtures.ts';

/** Doubles each number, and says how many it saw when the stream ends. */
function doubling(): EventTransformer<number, number | string> {
  let seen = 0;
  return {
    transform(event, controller) {
      seen += 1;
      controller.enqueue(event * 2);
    },
    flush(controller) {
      controller.enqueue(`saw ${seen}`);
    },
  };
}

/** Writes each value as text, and drops the ones it is told to. */
function writing(drop: (value: number | string) => boolean): EventTransformer<number | string, string> {
  return {
    transform(event, controller) {
      if (!drop(event)) controller.enqueue(`<${event}>`);
    },
    flush(controller) {
      controller.enqueue('end');
    },
  };
}

describe('event transformers', () => {
  it('are TransformStream transformers', async () => {
    expect(await transformEvents([1, 2, 3], doubling())).toEqual([2, 4, 6, 'saw 3']);
  });

  it('compose in order, the first one flushing before the second', async () => {
    const composed = composeTransformers(
      doubling(),
      writing((value) => value === 4),
    );
    expect(await transformEvents([1, 2, 3], composed)).toEqual(['<2>', '<6>', '<saw 3>', 'end']);
  });

  it('run by hand inside another stream, as the relay runs them', () => {
    const out: string[] = [];
    const run = runTransformer(
      composeTransformers(
        doubling(),
        writing(() => false),
      ),
      (event) => out.push(event),
    );
    run.push(5);
    expect(out).toEqual(['<10>']);
    run.end();
    expect(out).toEqual(['<10>', '<saw 1>', 'end']);
  });
});
