import { useState } from 'preact/hooks';
import { createMemberBody } from '../../../shared/admin/admin-schemas.ts';
import { formatDateTime, formatInteger } from '../format.ts';
import { adminPath, callJson, GatewayError } from './admin-client.ts';
import type { MemberView } from './admin-types.ts';
import { PolicyFields, type PolicyText, policyFromText, policyText } from './policy-fields.tsx';
import {
  ConfirmButton,
  ConflictNotice,
  Dialog,
  describeProblem,
  ErrorMessage,
  Field,
  StateBadge,
  TableScroll,
} from './ui.tsx';
import { usePagedList } from './use-list.ts';
import type { ViewContext } from './view-context.ts';

const limitText = (value: number | null | undefined) => (value == null ? 'No limit' : formatInteger(value));

export function MembersView(context: ViewContext) {
  const [name, setName] = useState('');
  const [state, setState] = useState('');
  const list = usePagedList<MemberView>(context, '/members', 'members', { name, state });
  const [editing, setEditing] = useState<MemberView | 'new' | null>(null);
  const credential = context.signed.credential;

  const verb = async (member: MemberView, action: 'disable' | 'enable' | 'suspend') => {
    await callJson(credential, adminPath(`/members/${encodeURIComponent(member.id)}/${action}`), { method: 'POST' });
    await list.reload();
  };

  return (
    <section aria-labelledby="members-title">
      <div class="view-head">
        <h1 id="members-title">Members</h1>
        <button type="button" class="button-primary" onClick={() => setEditing('new')}>
          Create member
        </button>
      </div>
      <ListFilters
        name={name}
        onName={setName}
        state={state}
        onState={setState}
        states={['active', 'disabled', 'suspended']}
      />
      <ErrorMessage error={list.error} />
      <TableScroll label="Members table">
        <table class="console-table">
          <caption class="visually-hidden">Members, with today's allowance (resets 00:00 UTC)</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">State</th>
              <th scope="col" class="number">
                Used today
              </th>
              <th scope="col" class="number">
                Reserved
              </th>
              <th scope="col" class="number">
                Left
              </th>
              <th scope="col">Resets</th>
              <th scope="col" class="number">
                RPM
              </th>
              <th scope="col" class="number">
                Concurrency
              </th>
              <th scope="col" class="number">
                Keys
              </th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((member) => (
              <tr key={member.id} data-member-id={member.id}>
                <th scope="row" class="name-cell">
                  {member.name}
                  <small class="muted id-text">{member.id}</small>
                </th>
                <td>{member.role}</td>
                <td>
                  <StateBadge state={member.status} />
                </td>
                <td class="number">{member.today ? formatInteger(member.today.used) : '—'}</td>
                <td class="number">{member.today ? formatInteger(member.today.reserved) : '—'}</td>
                <td class="number" data-left>
                  {member.today
                    ? member.today.left === null
                      ? 'No limit'
                      : `${formatInteger(member.today.left)} of ${formatInteger(member.today.dailyTokens ?? 0)}`
                    : member.policy.dailyTokens === undefined
                      ? 'No limit'
                      : `limit ${formatInteger(member.policy.dailyTokens)}`}
                </td>
                <td class="nowrap">{member.today ? formatDateTime(member.today.resetsAt) : '00:00 UTC'}</td>
                <td class="number">{limitText(member.policy.rpm)}</td>
                <td class="number">{limitText(member.policy.concurrency)}</td>
                <td class="number">{member.keyCount === undefined ? '—' : formatInteger(member.keyCount)}</td>
                <td class="actions">
                  <button type="button" class="button-quiet" onClick={() => setEditing(member)}>
                    Edit
                  </button>
                  <a class="button-quiet" href={`#keys?member=${encodeURIComponent(member.id)}`}>
                    Keys<span class="visually-hidden"> of {member.name}</span>
                  </a>
                  {member.status === 'active' ? (
                    <>
                      <ConfirmButton
                        label="Disable"
                        question={`Disable ${member.name}? Their keys stop working until they are enabled again.`}
                        action={() => verb(member, 'disable')}
                      />
                      <ConfirmButton
                        label="Suspend"
                        question={`Suspend ${member.name}? Their keys stop working until they are enabled again.`}
                        action={() => verb(member, 'suspend')}
                      />
                    </>
                  ) : (
                    <button type="button" class="button-quiet" onClick={() => void verb(member, 'enable')}>
                      Enable
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {!list.loading && list.items.length === 0 ? <p class="empty-note">No members match.</p> : null}
      {list.nextCursor ? (
        <button type="button" class="button-quiet" onClick={() => void list.loadMore()}>
          Load more
        </button>
      ) : null}
      {editing ? (
        <MemberForm
          context={context}
          member={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void list.reload();
          }}
        />
      ) : null}
    </section>
  );
}

export function ListFilters(props: {
  name: string;
  onName: (value: string) => void;
  state: string;
  onState: (value: string) => void;
  states: string[];
}) {
  // What is typed is the field's own until Enter or leaving the field applies it: a list answering meanwhile
  // re-renders the filters, and must not put back the value last applied over the text being typed.
  const [draft, setDraft] = useState(props.name);
  return (
    <search class="list-filters">
      <div class="field">
        <label for="filter-name">Search by name</label>
        <input
          id="filter-name"
          type="search"
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
          onChange={(e) => props.onName(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="filter-state">State</label>
        <select id="filter-state" value={props.state} onChange={(e) => props.onState(e.currentTarget.value)}>
          <option value="">Any</option>
          {props.states.map((state) => (
            <option key={state} value={state}>
              {state}
            </option>
          ))}
        </select>
      </div>
    </search>
  );
}

/** Create or edit a member; an edit is conditional on the version read, and a 409 offers the stored record. */
function MemberForm(props: {
  context: ViewContext;
  member: MemberView | null;
  onClose: () => void;
  onSaved: () => void;
}) {
  const [record, setRecord] = useState(props.member);
  const [name, setName] = useState(props.member?.name ?? '');
  const [role, setRole] = useState<string>(props.member?.role ?? 'member');
  const [policy, setPolicy] = useState<PolicyText>(policyText(props.member?.policy ?? {}));
  const [error, setError] = useState<unknown>(null);
  const [conflict, setConflict] = useState<MemberView | null>(null);

  const load = (member: MemberView) => {
    setRecord(member);
    setName(member.name);
    setRole(member.role);
    setPolicy(policyText(member.policy));
    setConflict(null);
    setError(null);
  };

  const save = async () => {
    const parsed = createMemberBody.safeParse({ name, role, policy: policyFromText(policy, true) });
    if (!parsed.success) return setError(new Error(describeProblem(parsed.error.issues)));
    try {
      if (record) {
        await callJson(props.context.signed.credential, adminPath(`/members/${encodeURIComponent(record.id)}/update`), {
          method: 'POST',
          body: { version: record.version, ...parsed.data },
        });
      } else {
        await callJson(props.context.signed.credential, adminPath('/members'), { method: 'POST', body: parsed.data });
      }
      props.onSaved();
    } catch (failure) {
      if (failure instanceof GatewayError && failure.code === 'version_conflict') {
        setConflict((failure.current as MemberView | undefined) ?? null);
      }
      setError(failure);
    }
  };

  return (
    <Dialog title={record ? `Edit ${record.name}` : 'Create member'} onClose={props.onClose}>
      <form
        class="console-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <Field label="Name" value={name} onInput={setName} required />
        <div class="field">
          <label for="member-role">Role</label>
          <select id="member-role" value={role} onChange={(event) => setRole(event.currentTarget.value)}>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </div>
        <PolicyFields value={policy} onChange={setPolicy} withDailyTokens />
        {conflict ? (
          <ConflictNotice subject="this member" onReload={() => load(conflict)} />
        ) : (
          <ErrorMessage error={error} />
        )}
        <div class="dialog-actions">
          <button type="submit" class="button-primary">
            {record ? 'Save' : 'Create member'}
          </button>
          <button type="button" class="button-quiet" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
