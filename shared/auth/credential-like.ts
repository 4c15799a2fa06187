/**
 * Whether a piece of text looks like it holds a credential, whatever it is called: the one rule the read stage
 * (a credential in a query string) and the 0.1 usage import (a credential in a record) both apply.
 */
const credentialPatterns = [
  // Gateway, holder and most providers' keys: `sk-` then at least a tag-and-secret's worth of key characters.
  /(?:^|[^A-Za-z0-9])sk-[A-Za-z0-9_-]{8,}/,
  /(?:^|\s|")bearer\s+\S/i,
  // Google API keys, and JSON web tokens (three base64url parts, the first an encoded `{"`).
  /AIza[0-9A-Za-z_-]{30,}/,
  /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\./,
  // AWS access key ids.
  /(?:^|[^A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?:$|[^A-Z0-9])/,
];

/** Runs of characters a token is written in (base64, base64url, hex and the like). */
const tokenRun = /[A-Za-z0-9+/=_-]{32,}/g;

export function looksLikeCredential(text: string): boolean {
  if (credentialPatterns.some((pattern) => pattern.test(text))) return true;
  for (const [run] of text.matchAll(tokenRun)) if (isHighEntropyToken(run)) return true;
  return false;
}

/**
 * A long random secret rather than an identifier: upper and lower case letters and digits all present, and more
 * than 4.5 bits of entropy per character (the threshold secret scanners use for base64). A random token of 40 or
 * more such characters passes it 98% of the time (43, a 32-byte secret: 99.5%); hex strings (hashes, UUIDs) stay
 * at or below 4 bits, and model names, dates and camel-case words, whose characters repeat, stay below it too.
 */
function isHighEntropyToken(run: string): boolean {
  if (!/[a-z]/.test(run) || !/[A-Z]/.test(run) || !/[0-9]/.test(run)) return false;
  const counts = new Map<string, number>();
  for (const character of run) counts.set(character, (counts.get(character) ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) {
    const share = count / run.length;
    entropy -= share * Math.log2(share);
  }
  return entropy > 4.5;
}
