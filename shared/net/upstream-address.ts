import { lookup as systemLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { remembered } from '../cache/remembered.ts';

/**
 * Which addresses an upstream call may connect to. Link-local and cloud metadata addresses are never an upstream:
 * a connection pointed there would hand the provider credential, and the answer, to the machine's metadata
 * service. Loopback and private ranges are the one-machine host's own network, allowed there; on AWS a
 * connection reaches them only when an administrator marked it as reaching a private network.
 */
export type AddressClass = 'never' | 'private' | 'public';

/** Whether an upstream call may reach loopback and private ranges (never link-local or metadata). */
export type UpstreamNetwork = 'public-only' | 'private-allowed';

/** The network one connection's calls may reach: the host's setting, widened by the connection's own mark. */
export function upstreamNetworkFor(
  privateUpstreams: 'allowed' | 'marked-only',
  connection: { readonly privateNetwork?: boolean },
): UpstreamNetwork {
  return privateUpstreams === 'allowed' || connection.privateNetwork === true ? 'private-allowed' : 'public-only';
}

const never = new BlockList();
// "This network": 0.0.0.0 reaches the local host on Linux.
never.addSubnet('0.0.0.0', 8, 'ipv4');
// Link-local, where AWS, GCP, Azure and others serve instance metadata (169.254.169.254) and credentials.
never.addSubnet('169.254.0.0', 16, 'ipv4');
// Alibaba Cloud's metadata service, and Azure's host agent (wireserver).
never.addAddress('100.100.100.200', 'ipv4');
never.addAddress('168.63.129.16', 'ipv4');
// Multicast, the reserved block and the broadcast address: no upstream lives there.
never.addSubnet('224.0.0.0', 4, 'ipv4');
never.addSubnet('240.0.0.0', 4, 'ipv4');
never.addAddress('::', 'ipv6');
never.addSubnet('fe80::', 10, 'ipv6');
never.addSubnet('ff00::', 8, 'ipv6');
// The EC2 instance metadata service over IPv6 (inside the unique-local range below, so it is listed first).
never.addAddress('fd00:ec2::254', 'ipv6');

const privateRanges = new BlockList();
privateRanges.addSubnet('127.0.0.0', 8, 'ipv4');
privateRanges.addSubnet('10.0.0.0', 8, 'ipv4');
privateRanges.addSubnet('172.16.0.0', 12, 'ipv4');
privateRanges.addSubnet('192.168.0.0', 16, 'ipv4');
privateRanges.addSubnet('100.64.0.0', 10, 'ipv4');
privateRanges.addSubnet('192.0.0.0', 24, 'ipv4');
privateRanges.addSubnet('198.18.0.0', 15, 'ipv4');
privateRanges.addAddress('::1', 'ipv6');
privateRanges.addSubnet('fc00::', 7, 'ipv6');
privateRanges.addSubnet('fec0::', 10, 'ipv6');
// Local-use NAT64 (RFC 8215): a translator of the site's own, which reaches whatever IPv4 network it sits on.
privateRanges.addSubnet('64:ff9b:1::', 48, 'ipv6');

/** Names that are metadata services whatever they resolve to (or do not resolve to) from here. */
const metadataNames = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.com',
  'metadata.platformequinix.com',
]);

/**
 * The class of an IP address. IPv6 addresses that carry an IPv4 address are judged by the IPv4 address inside:
 * IPv4-mapped (`::ffff:a.b.c.d`, which BlockList reads so itself), NAT64 and IPv4-compatible addresses.
 */
export function addressClass(address: string): AddressClass {
  return judgedAddressClass(address);
}

/**
 * An address's class never changes, and a connection's few addresses are judged on every call (the block lists'
 * checks build address objects each time): each is judged once.
 */
const judgedAddressClass = remembered(judgeAddress, 10_000);

function judgeAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return 'never';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const embedded = family === 6 ? embeddedIpv4(address) : undefined;
  if (embedded) return addressClass(embedded);
  if (never.check(address, type)) return 'never';
  if (privateRanges.check(address, type)) return 'private';
  return 'public';
}

/** Why an upstream call may not connect to this address, or `undefined` when it may. */
export function addressRefusal(address: string, network: UpstreamNetwork): string | undefined {
  switch (addressClass(address)) {
    case 'never':
      return `${address} is a link-local, metadata or otherwise reserved address, never an upstream`;
    case 'private':
      return network === 'private-allowed'
        ? undefined
        : `${address} is a loopback or private address; mark the connection as reaching a private network`;
    case 'public':
      return undefined;
    default:
      return 'unknown address class';
  }
}

/** Why an upstream call may not go to this host name (before it is resolved), or `undefined`. */
export function hostNameRefusal(hostname: string): string | undefined {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return metadataNames.has(name) ? `${hostname} is a cloud metadata service, never an upstream` : undefined;
}

/** The error an upstream connection fails with when its address is refused; dispatch turns it into a 502. */
export class UpstreamAddressRefused extends Error {
  readonly code = 'UPSTREAM_ADDRESS_REFUSED';
  constructor(readonly reason: string) {
    super(`upstream address refused: ${reason}`);
    this.name = 'UpstreamAddressRefused';
  }
}

type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

const resolveWithSystem: Resolve = (hostname) =>
  new Promise((resolve, reject) => {
    systemLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses);
    });
  });

/**
 * A `lookup` for sockets (net.connect, http.Agent) that resolves a name as the system would and refuses the
 * connection unless every address of the answer may be reached: the check applies to what is actually connected
 * to, at connect time, so a name that resolves (or is re-pointed) to a metadata or private address is refused
 * however harmless its text looked when the connection was stored.
 */
export function guardedLookup(network: UpstreamNetwork, resolve: Resolve = resolveWithSystem): LookupFunction {
  return (hostname, options, callback) => {
    const refusedName = hostNameRefusal(hostname);
    const answer = refusedName ? Promise.reject(new UpstreamAddressRefused(refusedName)) : resolve(hostname);
    answer.then(
      (addresses) => {
        const refusal = addresses.length === 0 ? `${hostname} has no address` : firstRefusal(addresses, network);
        if (refusal) {
          callback(new UpstreamAddressRefused(refusal), '', 0);
          return;
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = wanted ? addresses.filter((entry) => entry.family === wanted) : addresses;
        if (options.all) {
          callback(null, usable as never, 0);
          return;
        }
        const [first] = usable;
        if (!first)
          callback(Object.assign(new Error(`${hostname} has no IPv${wanted} address`), { code: 'ENOTFOUND' }), '', 0);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

function firstRefusal(addresses: readonly { address: string }[], network: UpstreamNetwork): string | undefined {
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, network);
    if (refusal) return refusal;
  }
  return undefined;
}

/**
 * The IPv4 address inside a NAT64 address (64:ff9b::/96), as IPv6-only networks reach IPv4 hosts, or inside an
 * IPv4-compatible one (`::a.b.c.d`, ::/96 but for `::` and `::1`; deprecated by RFC 4291 §2.5.5.1, and still
 * tunnelled to the IPv4 host by stacks that know it).
 */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const [high = 0, low = 0] = groups.slice(6);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0);
  const compatible = groups.slice(0, 6).every((group) => group === 0) && !(high === 0 && low <= 1);
  if (!nat64 && !compatible) return undefined;
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

function expandIpv6(text: string): number[] | undefined {
  // A dotted IPv4 tail (`64:ff9b::192.0.2.1`) is the last two groups.
  const address = text
    .toLowerCase()
    .replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_match, a, b, c, d) =>
      [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((group) => group.toString(16)).join(':'),
    );
  const [head = '', tail] = address.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  if ([...left, ...right].some((group) => Number.isNaN(group))) return undefined;
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  return [...left, ...Array.from({ length: missing }, () => 0), ...right];
}
