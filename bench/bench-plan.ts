/** How much each phase of `npm run bench` measures. */
export const plan = {
  latency: { warmupRequests: 300, rounds: 5, plainPerRound: 300, streamsPerRound: 40 },
  throughput: { connections: 50, durationSeconds: 10, warmupSeconds: 3 },
  /** Streams as clients call them: one client's streams back to back, and ten clients streaming at once. */
  clientStreams: {
    backToBack: { clients: 1, streamsPerClient: 200, warmupPerClient: 20 },
    concurrent: { clients: 10, streamsPerClient: 30, warmupPerClient: 3 },
  },
  countedRequests: 100,
  isolatedRequests: 300,
  openStreams: 500,
  streamCpu: { shortEvents: 500, longEvents: 6000, rounds: 15, streamsPerMeasurement: 2 },
};
