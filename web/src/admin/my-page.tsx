import { useCallback, useEffect, useState } from 'preact/hooks';
import { formatDateTime, formatInteger } from '../format.ts';
import { adminPath, callJson, GatewayError } from './admin-client.ts';
import { type IssuedKey, type KeyRow, type MeAnswer, secretOf } from './admin-types.ts';
import { KeyTable } from './keys-view.tsx';
import { ErrorMessage, Field, NewSecret } from './ui.tsx';
import type { ViewContext } from './view-context.ts';

/** A member's own page: today's allowance and their own keys, which they may create, rotate and revoke. */
export function MyPage(context: ViewContext) {
  const [me, setMe] = useState<MeAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [name, setName] = useState('');
  const credential = context.signed.credential;

  const load = useCallback(async () => {
    try {
      setMe(await callJson<MeAnswer>(credential, adminPath('/me')));
      setError(null);
    } catch (failure) {
      if (failure instanceof GatewayError && failure.status === 401) context.onUnauthorized();
      else setError(failure);
    }
  }, [credential]);
  useEffect(() => void load(), [load]);

  const keyAction = async (key: KeyRow, action: 'rotate' | 'revoke') => {
    const answer = await callJson<IssuedKey | { key: KeyRow }>(
      credential,
      adminPath(`/me/keys/${encodeURIComponent(key.id)}/${action}`),
      { method: 'POST' },
    );
    if (action === 'rotate') setSecret(secretOf(answer as IssuedKey));
    await load();
  };
  const create = async () => {
    try {
      const issued = await callJson<IssuedKey>(credential, adminPath('/me/keys'), {
        method: 'POST',
        body: name.trim() === '' ? {} : { name: name.trim() },
      });
      setSecret(secretOf(issued));
      setName('');
      await load();
    } catch (failure) {
      setError(failure);
    }
  };

  const today = me?.member.today;
  const live = me?.keys.filter((key) => key.state === 'active').length ?? 0;
  return (
    <section aria-labelledby="me-title">
      <div class="view-head">
        <h1 id="me-title">{me ? me.member.name : context.signed.viewer.memberName}</h1>
      </div>
      <ErrorMessage error={error} />
      {today ? (
        <section class="totals" aria-label="Allowance today">
          <article class="total" data-total="used">
            <h3>Used today</h3>
            <p class="total-value">{formatInteger(today.used)}</p>
            <p class="total-detail">tokens charged since 00:00 UTC</p>
          </article>
          <article class="total" data-total="reserved">
            <h3>Reserved</h3>
            <p class="total-value">{formatInteger(today.reserved)}</p>
            <p class="total-detail">held by requests still running</p>
          </article>
          <article class="total" data-total="left">
            <h3>Left</h3>
            <p class="total-value">{today.left === null ? 'No limit' : formatInteger(today.left)}</p>
            <p class="total-detail">
              {today.dailyTokens === null ? 'no daily limit' : `of ${formatInteger(today.dailyTokens)} a day`} · resets{' '}
              {formatDateTime(today.resetsAt)}
            </p>
          </article>
        </section>
      ) : null}
      <div class="view-head">
        <h2>My keys</h2>
      </div>
      {me ? (
        <p class="page-note">
          {formatInteger(live)} of at most {formatInteger(me.limits.maxLiveKeys)} live keys. They share your allowance.
        </p>
      ) : null}
      <form
        class="list-filters"
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <Field label="Name" value={name} onInput={setName} />
        <button type="submit" class="button-primary">
          Create key
        </button>
      </form>
      {secret ? <NewSecret secret={secret} onDone={() => setSecret(null)} /> : null}
      {me ? (
        <KeyTable
          keys={me.keys}
          onRevoke={(key) => keyAction(key, 'revoke')}
          onRotate={(key) => keyAction(key, 'rotate')}
        />
      ) : null}
    </section>
  );
}
