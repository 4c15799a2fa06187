import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localTableNames } from '../../infra/local/open-local-store.ts';
import { issueKey } from '../../shared/auth/key-issuance.ts';
import { keyPageOnDynamo, memberPageOnDynamo } from '../../shared/store/dynamodb/dynamo-pages.ts';
import type { DynamoStore } from '../../shared/store/dynamodb/dynamo-store.ts';
import type { DynamoTables } from '../../shared/store/dynamodb/dynamo-tables.ts';
import { startTestStore, type TestStore } from '../support/test-store.ts';

/**
 * Filtered pages on DynamoDB are bounded work: each reads at most a stretch of the kind index (here 8 entries, so a
 * small team shows what 1,000 do for a large one) with one Query and one BatchGet, and answers a short or empty page
 * with a cursor where it stopped. Following the cursors finds every match exactly once, in index order.
 */
let engine: TestStore;
let tables: DynamoTables;
const calls: string[] = [];
const stretch = 8;
const now = new Date('2026-11-21T10:00:00.000Z');
const needles: string[] = [];
const disabledNeedles: string[] = [];
const memberIds: string[] = [];

beforeAll(async () => {
  engine = await startTestStore('dynalite');
  const store = engine.store as DynamoStore;
  tables = { client: store.client, names: localTableNames };
  for (let index = 0; index < 30; index++) {
    const isNeedle = index % 7 === 3;
    const member = await store.members.create(
      { name: isNeedle ? `Needle ${index}` : `hay ${index}`, role: 'member', policy: {} },
      now,
    );
    memberIds.push(member.id);
    if (isNeedle) needles.push(member.id);
    if (isNeedle && index > 10) {
      await store.members.setStatus(member.id, 'disabled');
      disabledNeedles.push(member.id);
    }
  }
  store.client.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(context.commandName ?? '');
      return next(args);
    },
    { step: 'initialize', name: 'countCalls' },
  );
}, 120_000);
afterAll(async () => engine?.close());

/** What one page costs: a Query, and a BatchGet unless it found nothing and the Query named no entry. */
function callsOfPage(found: number): string[] {
  return found === 0 && calls.length === 1 ? ['QueryCommand'] : ['QueryCommand', 'BatchGetItemCommand'];
}

async function walkMembers(query: { name?: string; status?: 'disabled' }, limit: number) {
  const found: string[] = [];
  const pageSizes: number[] = [];
  let after: string | undefined;
  let pages = 0;
  do {
    calls.length = 0;
    const page = await memberPageOnDynamo(tables, { limit, after, ...query }, stretch);
    // One Query of the index and one BatchGet of the stretch it names; a stretch that names nothing (a page that
    // starts past the last entry, where the previous page filled up on it) needs no BatchGet.
    expect(calls).toEqual(callsOfPage(page.members.length));
    found.push(...page.members.map((member) => member.id));
    pageSizes.push(page.members.length);
    after = page.next;
    pages++;
  } while (after !== undefined && pages < 40);
  return { found, pageSizes };
}

describe('filtered lists on DynamoDB', () => {
  it('reads a bounded stretch per page and finds every match once, following short pages', async () => {
    const everyone = (await walkMembers({}, 50)).found;
    expect([...everyone].sort()).toEqual([...memberIds].sort());
    const inIndexOrder = everyone.filter((id) => needles.includes(id));

    const byName = await walkMembers({ name: 'NEEDLE' }, 50);
    expect(byName.found).toEqual(inIndexOrder);
    // 30 entries in stretches of 8: four pages, some short, none holding a member twice.
    expect(byName.pageSizes).toHaveLength(Math.ceil(30 / stretch));
    expect(byName.pageSizes.some((size) => size < byName.found.length)).toBe(true);

    // A page that fills inside its stretch ends at the member that filled it: the matches after it come next.
    const one = await walkMembers({ name: 'needle' }, 1);
    expect(one.found).toEqual(inIndexOrder);

    const disabled = await walkMembers({ name: 'needle', status: 'disabled' }, 2);
    expect(disabled.found).toEqual(everyone.filter((id) => disabledNeedles.includes(id)));
    const none = await walkMembers({ name: 'no such member' }, 50);
    expect(none.found).toEqual([]);
  });

  it('bounds a filtered page of the team’s keys the same way', async () => {
    const revoked: string[] = [];
    for (const [index, memberId] of memberIds.slice(0, 12).entries()) {
      const issued = await issueKey(
        engine.store,
        { memberId, name: index % 4 === 0 ? 'CI runner' : 'laptop', expiresAt: null, policy: {}, tag: 'gw' },
        now,
      );
      if (index % 4 === 0) revoked.push(issued.id);
    }
    for (const id of revoked) await engine.store.keys.revoke(id);
    const found: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      calls.length = 0;
      const page = await keyPageOnDynamo(tables, { limit: 50, after, name: 'runner', state: 'revoked', now }, stretch);
      expect(calls).toEqual(callsOfPage(page.keys.length));
      found.push(...page.keys.map((key) => key.id));
      after = page.next;
      pages++;
    } while (after !== undefined && pages < 40);
    expect([...found].sort()).toEqual([...revoked].sort());
    expect(pages).toBeGreaterThan(1);
  });
});
