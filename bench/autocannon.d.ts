/** The part of autocannon's API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9: number;
  }

  interface AutocannonClient {
    setHeaders(headers: Record<string, string>): void;
  }

  interface AutocannonOptions {
    url: string;
    method?: 'GET' | 'POST';
    body?: string | Buffer;
    headers?: Record<string, string>;
    connections?: number;
    duration?: number;
    timeout?: number;
    setupClient?: (client: AutocannonClient) => void;
  }

  interface AutocannonResult {
    requests: Histogram;
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
  export default autocannon;
}
