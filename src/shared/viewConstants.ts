/**
 * Values the host and the webview both use. This module imports nothing: the protocol modules
 * beside it build zod validators, which the host needs (it validates every webview message) and
 * the webview does not (it only needs their types). A value the webview imports from one of them
 * would pull zod into its bundle, about 450 KB to parse before the sidebar's first paint
 * (test/unit/webview/bundle.test.ts keeps zod out).
 */

/** How many of a chore's last occurrences its history chart shows. */
export const CHART_RUNS = 20;

/**
 * User Timing mark the Chat view sets once its thread's first paint lands: the conversation the
 * person was in, with its transcript, or a new chat (bench: history.sidebar_open).
 */
export const THREAD_FIRST_PAINT_MARK = 'tasklane:thread-first-paint';

/**
 * The marks before it, so the bench can say where the time to first paint goes: the sidebar's
 * script has run its imports and starts (`SIDEBAR_SCRIPT_MARK`), the host's first `init` arrived
 * (`SIDEBAR_INIT_MARK`).
 */
export const SIDEBAR_SCRIPT_MARK = 'tasklane:script-started';
export const SIDEBAR_INIT_MARK = 'tasklane:init-received';

/**
 * The id of the JSON island in the sidebar's HTML that carries its words, translated by the host
 * (src/shared/webviewWords.ts, read by src/webview/words.ts).
 */
export const WORDS_ISLAND_ID = 'tasklane-words';
