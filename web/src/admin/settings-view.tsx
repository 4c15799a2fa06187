import { useCallback, useEffect, useState } from 'preact/hooks';
import { updateSettingsBody } from '../../../shared/admin/admin-schemas.ts';
import { adminPath, callJson, GatewayError } from './admin-client.ts';
import type { Policy } from './admin-types.ts';
import { PolicyFields, type PolicyText, policyFromText, policyText } from './policy-fields.tsx';
import { ConflictNotice, describeProblem, ErrorMessage } from './ui.tsx';
import type { ViewContext } from './view-context.ts';

interface TeamSettings {
  version: number;
  defaultPolicy: Policy;
}

/**
 * The team's settings: the default limits a person gets when signing in with SSO makes them a member
 * (`GATEWAY_OIDC_UNKNOWN_PEOPLE=create-member`, docs/sign-in.md). Saved conditionally on the version read; a 409
 * offers the settings as now stored. Members already made keep their own limits.
 */
export function SettingsView(context: ViewContext) {
  const [settings, setSettings] = useState<TeamSettings | null>(null);
  const [policy, setPolicy] = useState<PolicyText>(policyText({}));
  const [error, setError] = useState<unknown>(null);
  const [conflict, setConflict] = useState<TeamSettings | null>(null);
  const [saved, setSaved] = useState(false);
  const credential = context.signed.credential;

  const show = (current: TeamSettings) => {
    setSettings(current);
    setPolicy(policyText(current.defaultPolicy));
    setConflict(null);
    setError(null);
  };
  const load = useCallback(async () => {
    try {
      show((await callJson<{ settings: TeamSettings }>(credential, adminPath('/settings'))).settings);
    } catch (failure) {
      if (failure instanceof GatewayError && failure.status === 401) context.onUnauthorized();
      else setError(failure);
    }
  }, [credential]);
  useEffect(() => void load(), [load]);

  const save = async () => {
    if (!settings) return;
    setSaved(false);
    const parsed = updateSettingsBody.safeParse({
      version: settings.version,
      defaultPolicy: policyFromText(policy, true),
    });
    if (!parsed.success) return setError(new Error(describeProblem(parsed.error.issues)));
    try {
      const answer = await callJson<{ settings: TeamSettings }>(credential, adminPath('/settings/update'), {
        method: 'POST',
        body: parsed.data,
      });
      show(answer.settings);
      setSaved(true);
    } catch (failure) {
      if (failure instanceof GatewayError && failure.code === 'version_conflict') {
        setConflict((failure.current as TeamSettings | undefined) ?? null);
      }
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="settings-title">
      <div class="view-head">
        <h1 id="settings-title">Settings</h1>
      </div>
      <form
        class="console-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <h2>Default limits for new members</h2>
        <p class="muted">
          A person who signs in with SSO and becomes a member gets these limits. Members already made keep their own.
        </p>
        {/* Not editable until the stored settings are shown: what is typed before they answer would be replaced. */}
        <fieldset class="plain-fieldset" disabled={!settings}>
          <PolicyFields value={policy} onChange={setPolicy} withDailyTokens />
        </fieldset>
        {conflict ? (
          <ConflictNotice subject="the settings" onReload={() => show(conflict)} />
        ) : (
          <ErrorMessage error={error} />
        )}
        <div class="dialog-actions">
          <button type="submit" class="button-primary" disabled={!settings}>
            Save defaults
          </button>
          <p class="muted" role="status">
            {saved ? 'Saved.' : ''}
          </p>
        </div>
      </form>
    </section>
  );
}
