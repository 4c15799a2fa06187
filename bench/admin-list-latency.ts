/**
 * How fast the admin API's lists answer for a team of 2,000 members and 10,000 keys, on the local host, on the
 * engine `GATEWAY_TEST_STORE` names (SQLite by default; `dynamodb` for the embedded dynalite, whose seeding takes
 * minutes). Run: `npx tsx bench/admin-list-latency.ts`. Seeding goes through the store port; every read goes
 * through the real API over HTTP. On DynamoDB it also counts the store calls one read makes (what a page costs).
 */
import { mapWithConcurrency } from '../shared/async-work/map-with-concurrency.ts';
import { issueKey } from '../shared/auth/key-issuance.ts';
import { startTestGateway } from '../test/support/test-gateway.ts';
import { percentile } from './statistics.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const memberCount = 2_000;
const keysPerMember = 5;

const gateway = await startTestGateway();
const services = gateway.host.services;
const now = services.now();
const seedStarted = performance.now();
const memberIds = await mapWithConcurrency(
  Array.from({ length: memberCount }, (_, index) => index),
  16,
  async (index) =>
    (
      await services.store.members.create(
        { name: `member ${index}`, role: 'member', policy: { dailyTokens: 100_000 } },
        now,
      )
    ).id,
);
await mapWithConcurrency(
  memberIds.flatMap((memberId) => Array.from({ length: keysPerMember }, () => memberId)),
  16,
  (memberId) => issueKey(services.store, { memberId, name: 'k', expiresAt: null, policy: {}, tag: 'gw' }, now),
);
process.stdout.write(
  `seeded ${memberCount} members and ${memberCount * keysPerMember} keys on ${services.store.engine} in ` +
    `${Math.round((performance.now() - seedStarted) / 1000)} s\n`,
);

// On DynamoDB: every call the store's client sends, counted.
let storeCalls = 0;
const client = (services.store as { client?: { middlewareStack: { add: (...args: unknown[]) => void } } }).client;
client?.middlewareStack.add(
  (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
    storeCalls++;
    return next(args);
  },
  { step: 'initialize' },
);

async function timed(label: string, path: string, runs = 7): Promise<void> {
  const times: number[] = [];
  let bytes = 0;
  let calls = 0;
  for (let run = 0; run < runs; run++) {
    const before = storeCalls;
    const started = performance.now();
    const response = await fetch(`${gateway.url}/admin/v1${path}`, {
      headers: { authorization: `Bearer ${gateway.adminKey}` },
    });
    bytes = (await response.arrayBuffer()).byteLength;
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    times.push(performance.now() - started);
    calls = storeCalls - before;
  }
  process.stdout.write(
    `${label.padEnd(40)} median ${percentile(times, 50).toFixed(0).padStart(5)} ms  (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}; ${(bytes / 1024).toFixed(0)} KiB${client ? `; ${calls} store calls incl. authentication` : ''})\n`,
  );
}

/** A filtered list read to its end, following `nextCursor`: on DynamoDB a page reads a bounded stretch. */
async function walked(label: string, path: string, field: string, runs = 3): Promise<void> {
  const times: number[] = [];
  let pages = 0;
  let found = 0;
  let calls = 0;
  for (let run = 0; run < runs; run++) {
    const before = storeCalls;
    const started = performance.now();
    pages = 0;
    found = 0;
    let cursor: string | null = null;
    do {
      const response = await fetch(`${gateway.url}/admin/v1${path}${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: { authorization: `Bearer ${gateway.adminKey}` },
      });
      if (!response.ok) throw new Error(`${path} answered ${response.status}`);
      const page = (await response.json()) as Record<string, unknown[]> & { nextCursor: string | null };
      found += page[field]?.length ?? 0;
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null);
    times.push(performance.now() - started);
    calls = storeCalls - before;
  }
  process.stdout.write(
    `${label.padEnd(40)} median ${percentile(times, 50).toFixed(0).padStart(5)} ms  (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}; ${pages} pages, ${found} found${client ? `; ${calls} store calls incl. authentication` : ''})\n`,
  );
}

const middle = memberIds[memberCount / 2] ?? '';
await timed('members, first page of 50', '/members');
await timed('members, first page of 200', '/members?limit=200');
await timed('members, name filter (one match)', '/members?name=member%201999');
await timed('members, state filter (none match)', '/members?state=suspended');
await timed('one member with today', `/members/${middle}`);
await timed('keys, first page of 50', '/keys');
await timed('keys of one member', `/keys?memberId=${middle}`);
await timed('keys, state filter (none match)', '/keys?state=revoked');
await timed('audit, first page', '/audit');
await walked('members, name filter, every page', '/members?name=member%20199', 'members');
await walked('members, state filter, every page', '/members?state=suspended', 'members');
await walked('keys, state filter, every page', '/keys?state=expired', 'keys');
await gateway.close();
