import { useState } from 'preact/hooks';
import { setHoldingsBody, walletSchema } from '../../../shared/admin/admin-schemas.ts';
import { formatDateTime } from '../format.ts';
import { adminPath, callJson } from './admin-client.ts';
import { type IssuedKey, type MemberView, secretOf } from './admin-types.ts';
import { describeProblem, ErrorMessage, Field, NewSecret, TableScroll } from './ui.tsx';
import { usePagedList } from './use-list.ts';
import type { ViewContext } from './view-context.ts';

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** The beta holder policy: a wallet's holdings set its allowance; a holder key is issued per wallet. */
export function HoldersView(context: ViewContext) {
  const members = usePagedList<MemberView>(context, '/members', 'members', {});
  const holders = members.items.filter((member) => member.role === 'holder');
  const [wallet, setWallet] = useState('');
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const credential = context.signed.credential;

  const setHoldings = async () => {
    const parsed = setHoldingsBody.safeParse({ wallet, usd: Number(amount.replace(/[$,\s]/g, '')) });
    if (amount.trim() === '' || !parsed.success) {
      return setError(new Error(parsed.success ? 'usd: enter an amount' : describeProblem(parsed.error.issues)));
    }
    try {
      await callJson(credential, adminPath('/holders'), { method: 'POST', body: parsed.data });
      setError(null);
      await members.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  const issueKey = async () => {
    const parsed = walletSchema.safeParse(wallet);
    if (!parsed.success) return setError(new Error(`wallet: ${describeProblem(parsed.error.issues)}`));
    try {
      const issued = await callJson<IssuedKey>(
        credential,
        adminPath(`/holders/${encodeURIComponent(parsed.data)}/keys`),
        {
          method: 'POST',
        },
      );
      setError(null);
      setSecret(secretOf(issued));
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="holders-title">
      <div class="view-head">
        <h1 id="holders-title">Holders</h1>
      </div>
      <form
        class="console-form card holder-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void setHoldings();
        }}
      >
        <Field label="Wallet" value={wallet} onInput={setWallet} />
        <Field label="Holdings (USD)" value={amount} onInput={setAmount} />
        <div class="dialog-actions">
          <button type="submit" class="button-primary">
            Set holdings
          </button>
          <button type="button" class="button-quiet" onClick={() => void issueKey()}>
            Issue holder key
          </button>
        </div>
        <ErrorMessage error={error ?? members.error} />
      </form>
      {secret ? <NewSecret secret={secret} onDone={() => setSecret(null)} /> : null}
      <TableScroll label="Holder wallets table">
        <table class="console-table">
          <caption class="visually-hidden">Holder wallets</caption>
          <thead>
            <tr>
              <th scope="col">Wallet</th>
              <th scope="col" class="number">
                Holdings
              </th>
              <th scope="col">Measured</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {holders.map((holder) => (
              <tr key={holder.id}>
                <th scope="row">{holder.name}</th>
                <td class="number">{holder.holdings ? usd.format(holder.holdings.usd) : '—'}</td>
                <td class="nowrap">{holder.holdings ? formatDateTime(holder.holdings.at) : '—'}</td>
                <td>{holder.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {!members.loading && holders.length === 0 ? <p class="empty-note">No holder wallets yet.</p> : null}
    </section>
  );
}
