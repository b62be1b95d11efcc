import type { ViewState } from '../shared/protocol';
import { demoNotice } from './demoNotice';
import { clear, h } from './dom';
import { word } from './words';

/** What the banner shows: the model line, Restricted Mode, the store's problem, the demo notice. */
export type BannerState = Pick<ViewState, 'model' | 'restricted' | 'storeProblem'>;

/** The sidebar's top notices; `command` runs one of the host's commands (Manage Trust, Choose model). */
export function drawBanner(banner: HTMLElement, state: BannerState, command: (name: 'manageTrust' | 'selectModel') => void): void {
  clear(banner);
  const link = (label: string, cls: string, name: 'manageTrust' | 'selectModel') => {
    const a = h('a', { href: '#', class: cls }, label);
    a.addEventListener('click', (e) => {
      e.preventDefault();
      command(name);
    });
    return a;
  };
  if (state.restricted) {
    banner.appendChild(h('div', { class: 'notice restricted' }, `${word('bannerRestricted')} `, link(word('bannerManageTrust'), 'trust-link', 'manageTrust')));
  }
  if (state.storeProblem) banner.appendChild(h('div', { class: 'notice error' }, state.storeProblem));
  const demo = demoNotice(state.model, () => command('selectModel'));
  if (demo) banner.appendChild(demo);
  const model = h(
    'div',
    { class: 'model-line' },
    state.model.model ? word('bannerModelNamed', state.model.provider, state.model.model) : word('bannerModel', state.model.provider),
  );
  if (state.model.problem)
    banner.appendChild(h('div', { class: 'notice warn' }, state.model.problem, ' ', link(word('chooseModel'), 'model-fix', 'selectModel')));
  banner.appendChild(model);
}
