/** How much each phase of `npm run bench` measures. */
export const plan = {
  latency: { warmupRequests: 300, rounds: 5, plainPerRound: 300, streamsPerRound: 40 },
  throughput: { connections: 32, durationSeconds: 10, warmupSeconds: 3 },
  countedRequests: 100,
  isolatedRequests: 300,
  openStreams: 500,
  streamCpu: { shortEvents: 500, longEvents: 6000, rounds: 15, streamsPerMeasurement: 2 },
};
