import OpenAI from 'openai';

/** The status and code of a request the gateway refused, as the openai SDK raises them; an answer fails the test. */
export async function refusal(promise: Promise<unknown>): Promise<{ status: number | undefined; code: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OpenAI.APIError) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error('the request was not refused');
}

/** Like `refusal`, but an answer counts as `{ status: 200 }`: for checks that a request is, or is not, refused. */
export async function outcome(promise: Promise<unknown>): Promise<{ status: number | undefined; code: unknown }> {
  try {
    await promise;
    return { status: 200, code: undefined };
  } catch (error) {
    if (error instanceof OpenAI.APIError) return { status: error.status, code: error.code };
    throw error;
  }
}
