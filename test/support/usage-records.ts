import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { GatewayServices } from '../../shared/config/gateway-services.ts';
import type { MemberItem } from '../../shared/store/control-items.ts';
import { getMember } from '../../shared/store/member-store.ts';
import type { UsageRecord } from '../../shared/store/usage-record-store.ts';

/** Waits until settlement has closed a request's record (settlement runs after the response ends). */
export async function settledRecord(services: GatewayServices, requestId: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await services.usage.client.send(
      new GetCommand({ TableName: services.usage.tableName, Key: { id: requestId }, ConsistentRead: true }),
    );
    const record = result.Item as UsageRecord | undefined;
    if (record && record.state !== 'running') return record;
    if (Date.now() > deadline) throw new Error(`record ${requestId} was not settled: ${JSON.stringify(record)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every record (tests only: the usage view itself never scans). */
export async function allRecords(services: GatewayServices): Promise<UsageRecord[]> {
  const result = await services.usage.client.send(new ScanCommand({ TableName: services.usage.tableName }));
  return (result.Items ?? []) as UsageRecord[];
}

/** Waits for every background settlement of the host, then reads the member item. */
export async function memberAfterSettlement(services: GatewayServices, memberId: string): Promise<MemberItem> {
  await Promise.allSettled([...services.background]);
  const member = await getMember(services.control, memberId, true);
  if (!member) throw new Error(`member ${memberId} is missing`);
  return member;
}
