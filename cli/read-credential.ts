import { UsageError } from './cli-errors.ts';

export interface StandardInput extends AsyncIterable<string | Uint8Array> {
  readonly isTTY?: boolean;
}

/**
 * Reads a secret piped on standard input. A terminal is refused: typing there would echo the secret on screen,
 * and a flag would leave it in shell history, so a pipe is the one way in that shows it nowhere.
 */
export async function readCredential(stdin: StandardInput): Promise<string> {
  if (stdin.isTTY === true) {
    throw new UsageError(
      '--api-key-stdin reads the credential from a pipe, not a terminal; e.g. printf \'%s\' "$KEY" | gateway-admin ...',
    );
  }
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stdin) text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  const credential = (text + decoder.decode()).trim();
  if (credential === '') throw new UsageError('standard input holds no credential; refusing an empty one');
  return credential;
}
