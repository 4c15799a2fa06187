import { providerColor } from '../format.ts';
import { type KeysAnswer, type PeriodId, periodIds, type Scope } from '../usage-types.ts';
import { periodName } from './periods.ts';

/** The period selector: a radio group, so it works with the keyboard and reads well to a screen reader. */
export function PeriodOptions(props: { selected: PeriodId; onChange: (id: PeriodId) => void }) {
  return (
    <div id="period-options" class="segmented">
      {periodIds.map((id) => (
        <label key={id} class="segment" for={`period-${id}`}>
          <input
            type="radio"
            name="period"
            value={id}
            id={`period-${id}`}
            checked={id === props.selected}
            onChange={(event) => {
              if (event.currentTarget.checked) props.onChange(id);
            }}
          />
          <span>{periodName(id)}</span>
        </label>
      ))}
    </div>
  );
}

/** The keys a scope shows: a member's own, or every key of the team. */
export function keysInScope(answer: KeysAnswer, scope: Scope) {
  return scope === 'team' ? answer.keys : answer.keys.filter((key) => key.memberId === answer.viewer.memberId);
}

/** Key filter options for the scope, with the member's name when the whole team is shown. */
export function KeySelect(props: {
  answer: KeysAnswer;
  scope: Scope;
  selected: string | null;
  onChange: (keyId: string | null) => void;
}) {
  const keys = keysInScope(props.answer, props.scope);
  const value = props.selected !== null && keys.some((key) => key.id === props.selected) ? props.selected : '';
  return (
    <select id="key-select" value={value} onChange={(event) => props.onChange(event.currentTarget.value || null)}>
      <option value="">{props.scope === 'team' ? 'All team keys' : 'All my keys'}</option>
      {keys.map((key) => {
        const text = props.scope === 'team' ? `${key.memberName} · ${key.label}` : key.label;
        return (
          <option key={key.id} value={key.id}>
            {key.state === 'revoked' ? `${text} (revoked)` : text}
          </option>
        );
      })}
    </select>
  );
}

/** Provider chips: every provider the period saw, plus any still selected, as a multi-select of checkboxes. */
export function ProviderOptions(props: {
  providers: readonly string[];
  selected: readonly string[];
  onChange: (providers: string[]) => void;
}) {
  const all = [...new Set([...props.providers, ...props.selected])].sort();
  if (all.length === 0) return <span class="muted">No providers in this period</span>;
  return (
    <>
      {all.map((provider) => (
        <label key={provider} class="chip" for={`provider-${provider}`}>
          <input
            type="checkbox"
            value={provider}
            id={`provider-${provider}`}
            name="provider"
            checked={props.selected.includes(provider)}
            onChange={(event) => {
              const next = new Set(props.selected);
              if (event.currentTarget.checked) next.add(provider);
              else next.delete(provider);
              props.onChange([...next].sort());
            }}
          />
          {/* A style property, set through the DOM, not a style attribute: the CSP allows it. */}
          <span class="swatch" style={{ backgroundColor: providerColor(provider, props.providers) }} />
          <span>{provider}</span>
        </label>
      ))}
    </>
  );
}
