import { answerParent, tellParentReady } from './child-process.ts';
import { startInstantUpstream } from './instant-upstream.ts';

/** The instant upstream as a process of its own (started by run-bench.ts). */
const upstream = await startInstantUpstream();
answerParent({});
process.on('SIGTERM', () => {
  upstream.close().then(() => process.exit(0));
});
tellParentReady({ url: upstream.url });
