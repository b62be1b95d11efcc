import type { ModelStatusView } from '../shared/protocol';
import { h } from './dom';
import { word } from './words';

/**
 * The model id `npm start` configures for its demo model (a scripted scenario that runs when no
 * key is configured; it lives with the test fixtures and is never part of the packaged
 * extension). The id is the only signal the webview needs: nothing else about the demo reaches it.
 */
export const DEMO_MODEL_ID = 'tasklane-demo';

/** The notice at the top of the sidebar while the demo model is selected, else null. */
export function demoNotice(model: ModelStatusView, chooseModel: () => void): HTMLElement | null {
  if (model.model !== DEMO_MODEL_ID) return null;
  const choose = h('a', { href: '#', class: 'model-fix' }, word('chooseModel'));
  choose.addEventListener('click', (e) => {
    e.preventDefault();
    chooseModel();
  });
  return h('div', { class: 'notice warn demo-model', role: 'status' }, word('demoNotice'), ' ', choose);
}
