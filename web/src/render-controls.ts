import { element } from './dom.ts';
import { providerColor } from './format.ts';
import type { KeysAnswer, PeriodId, Scope } from './usage-types.ts';
import { periodIds } from './usage-types.ts';

const periodNames: Record<PeriodId, string> = {
  today: 'Today',
  '24h': '24 hours',
  '7d': '7 days',
  '14d': '14 days',
  '30d': '30 days',
  '60d': '60 days',
};

export function periodName(period: PeriodId): string {
  return periodNames[period];
}

/** The period selector: a radio group, so it works with the keyboard and reads well to a screen reader. */
export function renderPeriodOptions(container: HTMLElement, selected: PeriodId, onChange: (id: PeriodId) => void) {
  container.replaceChildren(
    ...periodIds.map((id) => {
      const input = element('input', {
        attributes: { type: 'radio', name: 'period', value: id, id: `period-${id}` },
      });
      input.checked = id === selected;
      input.addEventListener('change', () => {
        if (input.checked) onChange(id);
      });
      return element('label', { className: 'segment', attributes: { for: `period-${id}` } }, [
        input,
        element('span', { text: periodNames[id] }),
      ]);
    }),
  );
}

/** Key filter options for the scope: a member's own keys, or every key of the team with its member's name. */
export function renderKeyOptions(select: HTMLSelectElement, answer: KeysAnswer, scope: Scope, selected: string | null) {
  const keys = scope === 'team' ? answer.keys : answer.keys.filter((key) => key.memberId === answer.viewer.memberId);
  const options = [
    element('option', { text: scope === 'team' ? 'All team keys' : 'All my keys', attributes: { value: '' } }),
  ];
  for (const key of keys) {
    const text = scope === 'team' ? `${key.memberName} · ${key.label}` : key.label;
    options.push(
      element('option', { text: key.state === 'revoked' ? `${text} (revoked)` : text, attributes: { value: key.id } }),
    );
  }
  select.replaceChildren(...options);
  select.value = selected !== null && keys.some((key) => key.id === selected) ? selected : '';
}

/** Provider chips: every provider the period saw, plus any still selected, as a multi-select of checkboxes. */
export function renderProviderOptions(
  container: HTMLElement,
  providers: readonly string[],
  selected: readonly string[],
  onChange: (providers: string[]) => void,
) {
  const all = [...new Set([...providers, ...selected])].sort();
  if (all.length === 0) {
    container.replaceChildren(element('span', { className: 'muted', text: 'No providers in this period' }));
    return;
  }
  container.replaceChildren(
    ...all.map((provider) => {
      const input = element('input', {
        attributes: { type: 'checkbox', value: provider, id: `provider-${provider}`, name: 'provider' },
      });
      input.checked = selected.includes(provider);
      input.addEventListener('change', () => {
        const next = new Set(selected);
        if (input.checked) next.add(provider);
        else next.delete(provider);
        onChange([...next].sort());
      });
      const swatch = element('span', { className: 'swatch' });
      swatch.style.backgroundColor = providerColor(provider, providers);
      return element('label', { className: 'chip', attributes: { for: `provider-${provider}` } }, [
        input,
        swatch,
        element('span', { text: provider }),
      ]);
    }),
  );
}
