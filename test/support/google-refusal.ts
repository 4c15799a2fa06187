import { ApiError } from '@google/genai';

/** The error the @google/genai SDK raises for a refused request; an answer, or any other error, fails the test. */
export async function googleApiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const caught = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(caught instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(caught)}`);
  return caught;
}
