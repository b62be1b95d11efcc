/**
 * The unit tier has no host to send the sidebar its words (src/webview/words.ts): it gives the
 * English catalog itself, before any test, as the host does untranslated. A test that wants
 * another language (the pseudo-locale) sets its own and gives English back after.
 */
import { WEBVIEW_WORDS } from '../../../src/shared/webviewWords';
import { useWords } from '../../../src/webview/words';

useWords(WEBVIEW_WORDS);
