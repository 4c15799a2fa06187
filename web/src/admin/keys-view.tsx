import { useEffect, useState } from 'preact/hooks';
import { createKeyBody } from '../../../shared/admin/admin-schemas.ts';
import { formatDateTime } from '../format.ts';
import { adminPath, callJson, GatewayError } from './admin-client.ts';
import { type IssuedKey, type KeyRow, type MemberView, secretOf } from './admin-types.ts';
import { ListFilters } from './members-view.tsx';
import { PolicyFields, type PolicyText, policyFromText, policyText } from './policy-fields.tsx';
import {
  ConfirmButton,
  ConflictNotice,
  Dialog,
  describeProblem,
  ErrorMessage,
  Field,
  NewSecret,
  StateBadge,
  TableScroll,
} from './ui.tsx';
import { usePagedList, useWholeList } from './use-list.ts';
import type { ViewContext } from './view-context.ts';

/** Expired is reported by the gateway; a key whose expiry passed since the list was read is shown so too. */
export function keyState(key: KeyRow, now = Date.now()): KeyRow['state'] {
  if (key.state === 'active' && key.expiresAt !== null && Date.parse(key.expiresAt) <= now) return 'expired';
  return key.state;
}

export function KeysView(props: ViewContext & { memberFilter: string | null }) {
  const [name, setName] = useState('');
  const [state, setState] = useState('');
  const [memberId, setMemberId] = useState(props.memberFilter ?? '');
  useEffect(() => setMemberId(props.memberFilter ?? ''), [props.memberFilter]);
  const list = usePagedList<KeyRow>(props, '/keys', 'keys', { name, state, memberId });
  // The whole team, not a page of it: the "Keys of" and "Member" choices must offer every member.
  const members = useWholeList<MemberView>(props, '/members', 'members');
  const memberName = (id: string) => members.items.find((member) => member.id === id)?.name ?? id;
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<KeyRow | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const credential = props.signed.credential;

  const revoke = async (key: KeyRow) => {
    await callJson(credential, adminPath(`/keys/${encodeURIComponent(key.id)}/revoke`), { method: 'POST' });
    await list.reload();
  };
  const rotate = async (key: KeyRow) => {
    const issued = await callJson<IssuedKey>(credential, adminPath(`/keys/${encodeURIComponent(key.id)}/rotate`), {
      method: 'POST',
    });
    setSecret(secretOf(issued));
    await list.reload();
  };

  return (
    <section aria-labelledby="keys-title">
      <div class="view-head">
        <h1 id="keys-title">Keys</h1>
        <button type="button" class="button-primary" onClick={() => setCreating(true)}>
          Create key
        </button>
      </div>
      <div class="list-filters">
        <div class="field">
          <label for="keys-of">Keys of</label>
          <select id="keys-of" value={memberId} onChange={(event) => setMemberId(event.currentTarget.value)}>
            <option value="">The whole team</option>
            {members.items.map((member) => (
              <option key={member.id} value={member.id}>
                {member.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ListFilters
        name={name}
        onName={setName}
        state={state}
        onState={setState}
        states={['active', 'revoked', 'expired']}
      />
      <ErrorMessage error={list.error} />
      {secret ? <NewSecret secret={secret} onDone={() => setSecret(null)} /> : null}
      <KeyTable keys={list.items} memberName={memberName} onEdit={setEditing} onRevoke={revoke} onRotate={rotate} />
      {!list.loading && list.items.length === 0 ? <p class="empty-note">No keys match.</p> : null}
      {list.nextCursor ? (
        <button type="button" class="button-quiet" onClick={() => void list.loadMore()}>
          Load more
        </button>
      ) : null}
      {creating || editing ? (
        <KeyForm
          context={props}
          members={members.items}
          initialMember={memberId}
          keyRow={editing}
          onClose={() => {
            setCreating(false);
            setEditing(null);
          }}
          onSaved={(issued) => {
            setCreating(false);
            setEditing(null);
            if (issued) setSecret(issued);
            void list.reload();
          }}
        />
      ) : null}
    </section>
  );
}

export function KeyTable(props: {
  keys: KeyRow[];
  memberName?: (id: string) => string;
  onEdit?: (key: KeyRow) => void;
  onRevoke: (key: KeyRow) => Promise<void>;
  onRotate: (key: KeyRow) => Promise<void>;
}) {
  return (
    <TableScroll label="Keys table">
      <table class="console-table">
        <caption class="visually-hidden">Keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            {props.memberName ? <th scope="col">Member</th> : null}
            <th scope="col">Prefix</th>
            <th scope="col">State</th>
            <th scope="col">Expires</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {props.keys.map((key) => {
            const state = keyState(key);
            return (
              <tr key={key.id} data-key-id={key.id} class={state === 'active' ? '' : 'row-inactive'}>
                <th scope="row" class="name-cell">
                  {key.name}
                  <small class="muted id-text">{key.id}</small>
                </th>
                {props.memberName ? <td>{props.memberName(key.memberId)}</td> : null}
                <td>
                  <code>{key.keyPrefix}</code>
                </td>
                <td>
                  <StateBadge state={state} />
                </td>
                <td class="nowrap">{key.expiresAt ? formatDateTime(key.expiresAt) : 'Never'}</td>
                <td class="nowrap">{formatDateTime(key.createdAt)}</td>
                <td class="actions">
                  <a class="button-quiet" href={`/app/usage?scope=team&keyId=${encodeURIComponent(key.id)}`}>
                    Usage<span class="visually-hidden"> of {key.name}</span>
                  </a>
                  {state === 'active' ? (
                    <>
                      {props.onEdit ? (
                        <button type="button" class="button-quiet" onClick={() => props.onEdit?.(key)}>
                          Edit
                        </button>
                      ) : null}
                      <ConfirmButton
                        label="Rotate"
                        question={`Rotate "${key.name}"? The current secret stops working at once; a new one is shown once.`}
                        action={() => props.onRotate(key)}
                      />
                      <ConfirmButton
                        label="Revoke"
                        question={`Revoke "${key.name}"? It stops working at once, for good.`}
                        action={() => props.onRevoke(key)}
                      />
                    </>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** A date-and-time field's value (local time, as the browser shows it) from an ISO instant, and back. */
function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const at = new Date(iso);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}
function fromLocalInput(value: string): string | null {
  return value === '' ? null : new Date(value).toISOString();
}

function KeyForm(props: {
  context: ViewContext;
  members: MemberView[];
  initialMember: string;
  keyRow: KeyRow | null;
  onClose: () => void;
  onSaved: (secret: string | null) => void;
}) {
  const [record, setRecord] = useState(props.keyRow);
  const [memberId, setMemberId] = useState(props.keyRow?.memberId ?? props.initialMember);
  const [name, setName] = useState(props.keyRow?.name ?? '');
  const [expires, setExpires] = useState(toLocalInput(props.keyRow?.expiresAt ?? null));
  const [policy, setPolicy] = useState<PolicyText>(policyText(props.keyRow?.policy ?? {}));
  const [error, setError] = useState<unknown>(null);
  const [conflict, setConflict] = useState<KeyRow | null>(null);

  const save = async () => {
    const parsed = createKeyBody.safeParse({
      memberId,
      name: name.trim() === '' ? undefined : name,
      expiresAt: fromLocalInput(expires),
      policy: policyFromText(policy, false),
    });
    if (!parsed.success) return setError(new Error(describeProblem(parsed.error.issues)));
    const credential = props.context.signed.credential;
    try {
      if (record) {
        const { name: newName, policy: newPolicy, expiresAt } = parsed.data;
        await callJson(credential, adminPath(`/keys/${encodeURIComponent(record.id)}/update`), {
          method: 'POST',
          body: { version: record.version, name: newName, policy: newPolicy, expiresAt: expiresAt ?? null },
        });
        props.onSaved(null);
      } else {
        const issued = await callJson<IssuedKey>(credential, adminPath('/keys'), { method: 'POST', body: parsed.data });
        props.onSaved(secretOf(issued));
      }
    } catch (failure) {
      if (failure instanceof GatewayError && failure.code === 'version_conflict') {
        setConflict((failure.current as KeyRow | undefined) ?? null);
      }
      setError(failure);
    }
  };

  return (
    <Dialog title={record ? `Edit ${record.name}` : 'Create key'} onClose={props.onClose}>
      <form
        class="console-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <div class="field">
          <label for="key-member">Member</label>
          <select
            id="key-member"
            value={memberId}
            disabled={record !== null}
            onChange={(event) => setMemberId(event.currentTarget.value)}
          >
            <option value="">Choose a member</option>
            {props.members
              .filter((member) => member.role !== 'holder')
              .map((member) => (
                <option key={member.id} value={member.id}>
                  {member.name}
                </option>
              ))}
          </select>
        </div>
        <Field label="Name" value={name} onInput={setName} />
        <Field label="Expires" type="datetime-local" value={expires} onInput={setExpires} hint="Blank: never." />
        <PolicyFields value={policy} onChange={setPolicy} withDailyTokens={false} />
        <p class="muted">A key shares its member's daily allowance; its limits can only narrow the member's.</p>
        {conflict ? (
          <ConflictNotice
            subject="this key"
            onReload={() => {
              setRecord(conflict);
              setName(conflict.name);
              setExpires(toLocalInput(conflict.expiresAt));
              setPolicy(policyText(conflict.policy));
              setConflict(null);
              setError(null);
            }}
          />
        ) : (
          <ErrorMessage error={error} />
        )}
        <div class="dialog-actions">
          <button type="submit" class="button-primary">
            {record ? 'Save' : 'Create key'}
          </button>
          <button type="button" class="button-quiet" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
