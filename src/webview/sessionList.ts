import type { SessionSummary } from '../shared/protocol';
import type { SessionHitView } from '../shared/sessionProtocol';
import type { SidebarResults } from '../shared/sidebarApi';
import { failureText } from './requests';
import { SESSIONS_FIRST_PAINT_MARK } from '../shared/viewConstants';
import { sessionStateWord } from '../shared/taskState';
import { stateIcon } from './stateIcon';
import { clear, formatTime, h, KeptRows, keepingFocus, oncePerFrame, syncChildren, visibleRows } from './dom';

const ROW_HEIGHT = 24;
const OVERSCAN = 8;
/** Pause after the last keystroke before the search box asks the host. */
const SEARCH_DEBOUNCE_MS = 200;

/** What the list needs from the rest of the sidebar. */
export interface SessionListHost {
  /** The person picked a session (a row or a search hit); undefined: New chat. */
  select(sessionId: string | undefined, hit?: SessionHitView): void;
  /** Asks for the page after this cursor. */
  loadMore(after: { at: number; id: string }): Promise<SidebarResults['sessions.page']>;
  /** Asks the history search. */
  search(query: string): Promise<SidebarResults['sessions.search']>;
  selected(): string | undefined;
}

const newer = (a: SessionSummary, b: SessionSummary) => a.lastActivity > b.lastActivity || (a.lastActivity === b.lastActivity && a.id > b.id);

/** A row drawn in the list: a conversation, or (nested, one level in) a task it started. */
interface ListEntry {
  session: SessionSummary;
  /** The conversation a task row is nested under. */
  parent?: string;
}

/**
 * The session list, virtualised and paged like the trace (traceList.ts): the host sends a page
 * of sessions (newest first) and another when the list is scrolled near its end; only the rows in
 * view are in the DOM, however many pages were loaded. A row is a conversation, titled by its
 * first message, with the tasks it started nested under it (`SessionSummary.tasks`): a task's
 * lane is never a row of its own beside the conversation that asked for it. A search box above
 * it asks the host's history search (the archive included) and shows the hits in place of the list.
 */
export class SessionList {
  private rows: SessionSummary[] = [];
  /** The rows drawn now, by session id; the selection mark is part of what a row shows. */
  private readonly drawn = new KeptRows<ListEntry>(
    (entry) => entry.session.id,
    (entry) => this.row(entry, this.host.selected()),
  );
  private readonly byId = new Map<string, SessionSummary>();
  /** A nested task's lane → the conversation whose row shows it. */
  private readonly parents = new Map<string, string>();
  /** The rows as drawn, conversations with their tasks under them (rebuilt when `rows` change). */
  private entries: ListEntry[] | undefined;
  private hasMore = false;
  private loading = false;
  /** Scroll events come many per frame: one render per frame. */
  private readonly schedule = oncePerFrame(() => this.render());
  private painted = false;
  private readonly viewport: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rowBox: HTMLElement;
  private readonly results: HTMLElement;
  private readonly searchBox: HTMLElement & { value: string };
  private searchTimer: ReturnType<typeof setTimeout> | undefined;
  private searchSeq = 0;

  constructor(
    element: HTMLElement,
    private readonly host: SessionListHost,
  ) {
    const newChat = h('vscode-button', { id: 'new-chat', secondary: true }, 'New chat');
    newChat.addEventListener('click', () => host.select(undefined));
    this.searchBox = h('vscode-textfield', {
      id: 'session-search',
      placeholder: 'Search history…',
      'aria-label': 'Search sessions and tasks',
    }) as HTMLElement & { value: string };
    this.searchBox.addEventListener('input', () => this.scheduleSearch());
    this.results = h('div', { class: 'session-results', role: 'list', hidden: true });
    this.spacer = h('div', { class: 'session-spacer' });
    this.rowBox = h('div', { class: 'session-rows' });
    this.viewport = h('div', { class: 'session-viewport', tabindex: 0 }, this.spacer, this.rowBox);
    this.viewport.addEventListener('scroll', () => this.schedule());
    this.rowBox.addEventListener('click', (event) => {
      const row = (event.target as HTMLElement).closest<HTMLElement>('[data-session-id]');
      if (row?.dataset.sessionId) host.select(row.dataset.sessionId);
    });
    element.append(newChat, this.searchBox, this.results, this.viewport);
  }

  get(sessionId: string): SessionSummary | undefined {
    const parent = this.parents.get(sessionId);
    if (parent) return this.byId.get(parent)?.tasks?.find((t) => t.id === sessionId);
    return this.byId.get(sessionId);
  }

  /** The conversation whose row a task's lane is nested in (undefined: not a nested lane, or not loaded). */
  parentOf(sessionId: string): string | undefined {
    return this.parents.get(sessionId);
  }

  /** Sessions loaded so far (not all are drawn). */
  get size(): number {
    return this.rows.length;
  }

  /** The first page (from `init`). */
  reset(sessions: SessionSummary[], hasMore: boolean): void {
    this.byId.clear();
    this.parents.clear();
    this.rows = [];
    for (const s of sessions) this.insert(s);
    this.hasMore = hasMore;
    this.loading = false;
    this.viewport.scrollTop = 0;
    this.render();
    // The list's first paint, as a User Timing mark relative to the view's own start
    // (performance.timeOrigin): what bench/historySidebar.ts reads as history.sidebar_open.
    if (!this.painted) {
      this.painted = true;
      requestAnimationFrame(() => setTimeout(() => performance.mark(SESSIONS_FIRST_PAINT_MARK), 0));
    }
  }

  /** A live change: the session moves to its place by activity (new ones arrive on top). */
  upsert(session: SessionSummary): void {
    this.removeRow(session.id);
    // A session older than everything loaded while more pages exist belongs to a later page.
    const last = this.rows[this.rows.length - 1];
    if (this.hasMore && last && newer(last, session)) return;
    this.insert(session);
    this.render();
  }

  remove(sessionId: string): void {
    const parent = this.parents.get(sessionId);
    const row = parent ? this.byId.get(parent) : undefined;
    if (parent && row) {
      const tasks = row.tasks?.filter((t) => t.id !== sessionId);
      this.upsert({ ...row, ...(tasks?.length ? { tasks } : { tasks: undefined }) });
      this.parents.delete(sessionId);
      return;
    }
    if (this.removeRow(sessionId)) this.render();
  }

  /** Redraws the selection mark. */
  refresh(): void {
    this.render();
  }

  /** The page after `after` arrived (the reply to loadMore). */
  private pageArrived(after: { at: number; id: string }, page: SidebarResults['sessions.page'] | undefined): void {
    const last = this.rows[this.rows.length - 1];
    this.loading = false;
    // A page answers the cursor it was asked with; one for an older end of the list (a reset
    // came meanwhile) is dropped, and the next render asks again from the current end.
    if (page && last && after.id === last.id && after.at === last.lastActivity) {
      for (const s of page.sessions) if (!this.byId.has(s.id)) this.rows.push(this.remember(s));
      this.hasMore = page.hasMore;
    }
    this.render();
  }

  private remember(session: SessionSummary): SessionSummary {
    this.byId.set(session.id, session);
    for (const task of session.tasks ?? []) this.parents.set(task.id, session.id);
    this.entries = undefined;
    return session;
  }

  private insert(session: SessionSummary): void {
    let i = 0;
    while (i < this.rows.length && newer(this.rows[i], session)) i++;
    this.rows.splice(i, 0, this.remember(session));
  }

  private removeRow(sessionId: string): boolean {
    const row = this.byId.get(sessionId);
    if (!row) return false;
    this.byId.delete(sessionId);
    for (const task of row.tasks ?? []) if (this.parents.get(task.id) === sessionId) this.parents.delete(task.id);
    this.rows = this.rows.filter((s) => s.id !== sessionId);
    this.entries = undefined;
    return true;
  }

  /** Conversations with their tasks under them, as drawn (and virtualised) row by row. */
  private flat(): ListEntry[] {
    this.entries ??= this.rows.flatMap((session) => [{ session }, ...(session.tasks ?? []).map((task) => ({ session: task, parent: session.id }))]);
    return this.entries;
  }

  private render(): void {
    const entries = this.flat();
    this.spacer.style.height = `${entries.length * ROW_HEIGHT}px`;
    const { first, last } = visibleRows(this.viewport, entries.length, ROW_HEIGHT, OVERSCAN, 200);
    this.rowBox.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
    const selected = this.host.selected();
    // Rows are buttons: one that shows the same is kept where it is, and a focused one that had to
    // be redrawn or moved (its session became active) keeps the focus.
    const elements = this.drawn.draw(entries.slice(first, last), (entry) => JSON.stringify([entry.session, entry.parent, entry.session.id === selected]));
    keepingFocus(this.rowBox, 'data-session-id', () => syncChildren(this.rowBox, elements));
    // Near the end with more to come: ask for the next page (one request at a time).
    const end = this.rows[this.rows.length - 1];
    if (this.hasMore && !this.loading && end && last >= entries.length - OVERSCAN) {
      this.loading = true;
      const after = { at: end.lastActivity, id: end.id };
      // A failed page is said by the host; scrolling asks again.
      this.host.loadMore(after).then(
        (page) => this.pageArrived(after, page),
        () => this.pageArrived(after, undefined),
      );
    }
  }

  private row({ session, parent }: ListEntry, selected: string | undefined): HTMLElement {
    return h(
      'button',
      {
        class: `session${parent ? ' session-task' : ''}${session.id === selected ? ' selected' : ''}${session.archived ? ' archived' : ''}`,
        'data-session-id': session.id,
        ...(parent ? { 'data-parent-id': parent } : {}),
        title: session.name,
      },
      parent ? h('span', { class: 'session-task-mark' }, h('span', { class: 'visually-hidden' }, 'task: '), h('span', { 'aria-hidden': 'true' }, '↳')) : null,
      h('span', { class: 'session-name' }, session.name),
      this.meta(session),
      session.pendingApprovals > 0 ? h('vscode-badge', { class: 'badge-approval' }, `${session.pendingApprovals} to review`) : null,
    );
  }

  /** The row's state in the one task vocabulary (with its icon), then when it last moved. */
  private meta(session: SessionSummary): HTMLElement {
    const word = session.archived ? 'archived' : sessionStateWord(session.status, session.waitingForUser, session.paused);
    const when = ` · ${formatTime(session.lastActivity)}`;
    if (word === 'archived' || word === 'idle') return h('span', { class: 'session-meta', 'data-state': word }, `${word}${when}`);
    return h('span', { class: 'session-meta', 'data-state': word }, stateIcon(word), `${word}${when}`);
  }

  private scheduleSearch(): void {
    if (this.searchTimer) clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => {
      const query = this.searchBox.value.trim();
      if (!query) {
        this.searchSeq++;
        this.results.hidden = true;
        this.viewport.hidden = false;
        this.render();
        return;
      }
      // Only the newest search's answer is shown (an older one may arrive after it).
      const seq = ++this.searchSeq;
      this.host.search(query).then(
        ({ hits }) => seq === this.searchSeq && this.showResults(hits),
        (error: unknown) => seq === this.searchSeq && this.showResults([], failureText(error)),
      );
    }, SEARCH_DEBOUNCE_MS);
  }

  private showResults(hits: SessionHitView[], error?: string): void {
    clear(this.results);
    this.results.hidden = false;
    this.viewport.hidden = true;
    if (error) this.results.appendChild(h('div', { class: 'notice error' }, error));
    else if (hits.length === 0) this.results.appendChild(h('div', { class: 'empty' }, 'Nothing found.'));
    for (const hit of hits) {
      const item = h(
        'button',
        { class: 'session session-hit', role: 'listitem', 'data-hit-session-id': hit.sessionId, title: hit.title },
        h('span', { class: 'session-name' }, hit.title),
        h('span', { class: 'session-meta' }, `${hit.kind}${hit.archived ? ' · archived' : ''} · ${formatTime(hit.at)}`),
      );
      item.addEventListener('click', () => this.host.select(hit.sessionId, hit));
      this.results.appendChild(item);
    }
  }
}
