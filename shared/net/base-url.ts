import { isIP } from 'node:net';
import { addressRefusal, hostNameRefusal, type UpstreamNetwork } from './upstream-address.ts';

export type BaseUrlCheck = { ok: true; url: URL } | { ok: false; problem: string };

/**
 * Whether a connection's base URL may be stored: the one check of a base URL's text, for the admin API and any
 * later tool that wants the same verdict. http(s) only; no user name or password (they would travel as Basic
 * credentials and show in errors), no query and no fragment (a query is where credentials hide, and the list API
 * would return it); never a metadata host or address, and a loopback or private address only where the network
 * allows it. A host name is judged again by its DNS answers every time a call connects (upstream-address.ts).
 */
export function checkBaseUrl(text: string, network: UpstreamNetwork): BaseUrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: 'it is not a URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, problem: 'it must be http or https' };
  if (url.username !== '' || url.password !== '') {
    return { ok: false, problem: 'it must not hold a user name or password; the credential is stored apart' };
  }
  // `?` or `#` with nothing after them leave search and hash empty, so the text is checked too.
  if (url.search !== '' || text.includes('?')) return { ok: false, problem: 'it must not have a query' };
  if (url.hash !== '' || text.includes('#')) return { ok: false, problem: 'it must not have a fragment' };
  // The parser has already turned octal, hexadecimal and integer IPv4 spellings into the dotted form.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return { ok: false, problem: 'it has no host' };
  const refusal = isIP(host) ? addressRefusal(host, network) : hostNameRefusal(host);
  return refusal ? { ok: false, problem: refusal } : { ok: true, url };
}
