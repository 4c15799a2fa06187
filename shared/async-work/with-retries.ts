const defaultAttempts = 4;

/**
 * Runs `work` until it succeeds, at most `attempts` times, waiting 100, 200, 400… ms between tries. For writes
 * that must land once a request is past a point of no return (settlement's gate) and that are safe to repeat.
 */
export async function withRetries<T>(work: () => Promise<T>, attempts = defaultAttempts): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    }
  }
}
