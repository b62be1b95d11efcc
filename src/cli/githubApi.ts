/**
 * A tiny GitHub REST client over fetch: only the endpoints the CI side uses (collaborator
 * permission, labels, comments, issues, check runs, the git data API for a draft pull request).
 * `$GITHUB_API_URL` (default https://api.github.com) and the repository come from the
 * environment; the token is whichever the step was given, never printed.
 */

export class GithubApiError extends Error {
  override readonly name = 'GithubApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface GithubApiOptions {
  /** e.g. https://api.github.com, without a trailing slash. */
  baseUrl: string;
  /** `owner/name`. */
  repo: string;
  token: string | undefined;
}

/** A check run as listed (the fields the fire ledger reads). */
export interface CheckRunSummary {
  id: number;
  name: string;
  started_at?: string | null;
  external_id?: string | null;
  /** The app that wrote it: `github-actions` for the workflow's own token. */
  app?: { slug?: string | null } | null;
  output?: { summary?: string | null };
}

/** Who wrote an issue or a comment: Tasklane's own writes are a Bot's (the workflow's token or an app). */
export interface Author {
  login?: string;
  type?: string;
}

export interface IssueSummary {
  number: number;
  title: string;
  body?: string | null;
  pull_request?: unknown;
  user?: Author | null;
}

export interface CommentSummary {
  id: number;
  body?: string | null;
  user?: Author | null;
}

/** A pull request as `GET /pulls/{n}` answers (the fields a push to it reads). */
export interface PullSummary {
  number: number;
  state: string;
  head: { ref: string; sha: string; repo: { full_name: string } | null };
}

/** An entry of one tree level (`GET /git/trees/{sha}`, not recursive). */
export interface TreeEntry {
  path: string;
  mode: string;
  type: string;
  sha: string;
}

/** Most pages read from a list endpoint (100 per page). */
const maxPages = 5;

export class GithubApi {
  constructor(private readonly options: GithubApiOptions) {
    if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(options.repo)) throw new Error(`"${options.repo}" is not an owner/name repository`);
  }

  get repo(): string {
    return this.options.repo;
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await this.send<T>(method, path, body)).data;
  }

  /**
   * A plain-text answer, such as a job's log: GitHub answers 302 with a short-lived signed download
   * address, which is fetched here without the token (never handed to another address).
   */
  async text(path: string): Promise<string> {
    const headers: Record<string, string> = { 'x-github-api-version': '2022-11-28', 'user-agent': 'tasklane' };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    const signal = AbortSignal.timeout(30_000);
    let response = await fetch(`${this.options.baseUrl.replace(/\/+$/, '')}${path}`, { headers, redirect: 'manual', signal });
    const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
    if (location) response = await fetch(location, { headers: { 'user-agent': 'tasklane' }, signal });
    const text = await response.text();
    if (!response.ok) throw new GithubApiError(response.status, `GET ${path.split('?')[0]}: ${response.status} ${text.slice(0, 200)}`);
    return text;
  }

  /** One request, with the answer's `Link: <…>; rel="next"|"last"` targets (paths), for lists read whole. */
  private async send<T>(method: string, path: string, body?: unknown): Promise<{ data: T; links: Record<string, string> }> {
    const headers: Record<string, string> = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'tasklane' };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.options.baseUrl.replace(/\/+$/, '')}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (!response.ok) {
      let message = text.slice(0, 300);
      try {
        message = String((JSON.parse(text) as { message?: unknown }).message ?? message);
      } catch {
        // not JSON: keep the start of the text
      }
      throw new GithubApiError(response.status, `${method} ${path.split('?')[0]}: ${response.status} ${message}`);
    }
    return { data: (text ? JSON.parse(text) : undefined) as T, links: parseLinks(response.headers.get('link'), this.options.baseUrl) };
  }

  private r(path: string): string {
    return `/repos/${this.options.repo}${path}`;
  }

  /** The person's role: `role_name` (admin, maintain, write, triage, read) or the legacy `permission`. */
  async permission(login: string): Promise<string> {
    try {
      const found = await this.request<{ permission?: string; role_name?: string }>('GET', this.r(`/collaborators/${encodeURIComponent(login)}/permission`));
      return found.role_name ?? found.permission ?? 'none';
    } catch (error) {
      // Not a collaborator at all: GitHub answers 404.
      if (error instanceof GithubApiError && error.status === 404) return 'none';
      throw error;
    }
  }

  async addLabels(issue: number, labels: string[]): Promise<void> {
    await this.request('POST', this.r(`/issues/${issue}/labels`), { labels });
  }

  /** Removes a label from an issue or pull request; false when it was not on it (GitHub answers 404). */
  async removeLabel(issue: number, label: string): Promise<boolean> {
    try {
      await this.request('DELETE', this.r(`/issues/${issue}/labels/${encodeURIComponent(label)}`));
      return true;
    } catch (error) {
      if (error instanceof GithubApiError && error.status === 404) return false;
      throw error;
    }
  }

  async comments(issue: number): Promise<CommentSummary[]> {
    return this.pages<CommentSummary>(this.r(`/issues/${issue}/comments`));
  }

  async createComment(issue: number, body: string): Promise<number> {
    return (await this.request<{ id: number }>('POST', this.r(`/issues/${issue}/comments`), { body })).id;
  }

  async updateComment(id: number, body: string): Promise<void> {
    await this.request('PATCH', this.r(`/issues/comments/${id}`), { body });
  }

  /** Issues of the repository, open and closed (pull requests left out). */
  async issues(): Promise<IssueSummary[]> {
    return (await this.pages<IssueSummary>(this.r('/issues?state=all'))).filter((i) => !i.pull_request);
  }

  async createIssue(title: string, body: string): Promise<number> {
    return (await this.request<{ number: number }>('POST', this.r('/issues'), { title, body })).number;
  }

  /** A review comment on a pull request: always `event: COMMENT`, never an approval. */
  async createReview(pull: number, body: string): Promise<void> {
    await this.request('POST', this.r(`/pulls/${pull}/reviews`), { body, event: 'COMMENT' });
  }

  /**
   * Every check run of `name` on `ref`, page after page as GitHub links them, and the total it
   * says there are: a caller that needs the whole list compares the two (fireLedger.ts fails closed).
   */
  async checkRunsWhole(ref: string, name: string, maxPagesRead = 50): Promise<{ runs: CheckRunSummary[]; total: number }> {
    let next: string | undefined = this.r(`/commits/${encodeURIComponent(ref)}/check-runs?check_name=${encodeURIComponent(name)}&filter=all&per_page=100`);
    const runs: CheckRunSummary[] = [];
    let total = 0;
    for (let page = 0; next && page < maxPagesRead; page++) {
      const answer: { data: { total_count?: number; check_runs?: CheckRunSummary[] }; links: Record<string, string> } = await this.send('GET', next);
      total = Math.max(total, answer.data.total_count ?? 0);
      runs.push(...(answer.data.check_runs ?? []));
      next = answer.links.next;
    }
    return { runs, total };
  }

  /**
   * The first commit of the default branch (the last page of its history, one commit a page):
   * a commit every fire of the repository can name without being told, for the fire ledger.
   */
  async firstCommit(): Promise<string> {
    const repo = await this.request<{ default_branch: string }>('GET', this.r(''));
    const first = this.r(`/commits?sha=${encodeURIComponent(repo.default_branch)}&per_page=1`);
    const head = await this.send<Array<{ sha: string }>>('GET', first);
    const last = head.links.last ? (await this.send<Array<{ sha: string }>>('GET', head.links.last)).data : head.data;
    const sha = last.at(-1)?.sha;
    if (!sha) throw new Error(`the default branch ${repo.default_branch} has no commit`);
    return sha;
  }

  async createCheckRun(run: {
    name: string;
    head_sha: string;
    conclusion: string;
    title: string;
    summary: string;
    details_url?: string;
    external_id?: string;
  }): Promise<void> {
    await this.request('POST', this.r('/check-runs'), {
      name: run.name,
      head_sha: run.head_sha,
      ...(run.details_url ? { details_url: run.details_url } : {}),
      ...(run.external_id ? { external_id: run.external_id } : {}),
      status: 'completed',
      conclusion: run.conclusion,
      completed_at: new Date().toISOString(),
      output: { title: run.title, summary: run.summary },
    });
  }

  async defaultBranchHead(): Promise<{ branch: string; sha: string; tree: string }> {
    const repo = await this.request<{ default_branch: string }>('GET', this.r(''));
    const ref = await this.request<{ object: { sha: string } }>('GET', this.r(`/git/ref/heads/${encodeURIComponent(repo.default_branch)}`));
    const commit = await this.request<{ tree: { sha: string } }>('GET', this.r(`/git/commits/${ref.object.sha}`));
    return { branch: repo.default_branch, sha: ref.object.sha, tree: commit.tree.sha };
  }

  async createBlob(content: string): Promise<string> {
    return (await this.request<{ sha: string }>('POST', this.r('/git/blobs'), { content: Buffer.from(content).toString('base64'), encoding: 'base64' })).sha;
  }

  /** A tree on `base`: each entry's mode is the caller's (draftPull.ts takes it from the base tree). */
  async createTree(base: string, entries: ReadonlyArray<{ path: string; sha: string | null; mode: string }>): Promise<string> {
    const tree = entries.map((e) => ({ path: e.path, mode: e.mode, type: 'blob', sha: e.sha }));
    return (await this.request<{ sha: string }>('POST', this.r('/git/trees'), { base_tree: base, tree })).sha;
  }

  /** One level of a tree: each entry's name, mode (100644, 100755, 120000, 040000, 160000), type and object. */
  async treeEntries(sha: string): Promise<TreeEntry[]> {
    return (await this.request<{ tree?: TreeEntry[] }>('GET', this.r(`/git/trees/${encodeURIComponent(sha)}`))).tree ?? [];
  }

  /** A pull request's state and head: its branch, commit and the repository the branch is in (null: deleted fork). */
  async pull(number: number): Promise<PullSummary> {
    return this.request<PullSummary>('GET', this.r(`/pulls/${number}`));
  }

  /** The commit's message (fireLoop.ts reads a pull request's new head). */
  async commitMessage(sha: string): Promise<string> {
    return (await this.request<{ message: string }>('GET', this.r(`/git/commits/${encodeURIComponent(sha)}`))).message;
  }

  /** The commit's tree. */
  async commitTree(sha: string): Promise<string> {
    return (await this.request<{ tree: { sha: string } }>('GET', this.r(`/git/commits/${encodeURIComponent(sha)}`))).tree.sha;
  }

  /** Moves a branch to `sha`, a fast-forward only: GitHub refuses (422) when the branch moved on meanwhile. */
  async updateRef(branch: string, sha: string): Promise<void> {
    await this.request('PATCH', this.r(`/git/refs/heads/${branch.split('/').map(encodeURIComponent).join('/')}`), { sha, force: false });
  }

  async deleteRef(branch: string): Promise<void> {
    await this.request('DELETE', this.r(`/git/refs/heads/${branch.split('/').map(encodeURIComponent).join('/')}`));
  }

  async createCommit(message: string, tree: string, parent: string): Promise<string> {
    return (await this.request<{ sha: string }>('POST', this.r('/git/commits'), { message, tree, parents: [parent] })).sha;
  }

  async createRef(branch: string, sha: string): Promise<void> {
    await this.request('POST', this.r('/git/refs'), { ref: `refs/heads/${branch}`, sha });
  }

  async fileAt(path: string, ref: string): Promise<string | undefined> {
    try {
      const file = await this.request<{ content?: string; encoding?: string }>(
        'GET',
        this.r(`/contents/${path.split('/').map(encodeURIComponent).join('/')}?ref=${encodeURIComponent(ref)}`),
      );
      return file.content !== undefined ? Buffer.from(file.content, 'base64').toString('utf8') : undefined;
    } catch (error) {
      if (error instanceof GithubApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** Opens the pull request as a draft; there is no path here that merges or approves. */
  async createDraftPull(pr: { title: string; body: string; head: string; base: string }): Promise<number> {
    return (await this.request<{ number: number }>('POST', this.r('/pulls'), { ...pr, draft: true })).number;
  }

  private async pages<T>(path: string): Promise<T[]> {
    const all: T[] = [];
    for (let page = 1; page <= maxPages; page++) {
      const batch = await this.request<T[]>('GET', `${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`);
      all.push(...batch);
      if (batch.length < 100) break;
    }
    return all;
  }
}

/** `Link` header targets by rel, as paths under `baseUrl` (GitHub links absolute URLs). */
function parseLinks(header: string | null, baseUrl: string): Record<string, string> {
  const links: Record<string, string> = {};
  const base = baseUrl.replace(/\/+$/, '');
  for (const part of (header ?? '').split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="([^"]+)"/.exec(part);
    if (!match) continue;
    const url = match[1];
    // Only a link back to the same API is followed (a Link header naming another host is ignored).
    if (url.startsWith(`${base}/`)) links[match[2]] = url.slice(base.length);
  }
  return links;
}
