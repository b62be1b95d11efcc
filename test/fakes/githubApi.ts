import { createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake received, with the token it carried. */
export interface GithubRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown> | undefined;
  token: string | undefined;
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  labels: string[];
  pull_request?: object;
  user?: { login: string; type: string };
}

/** Who a write is recorded as: the workflow's token writes as its bot. */
const bot = { login: 'github-actions[bot]', type: 'Bot' };

export interface FakeCheckRun {
  id: number;
  name: string;
  head_sha: string;
  conclusion: string;
  started_at: string;
  output: { title: string; summary: string };
  details_url?: string;
  external_id?: string;
  /** The app that wrote it: the workflow's token writes as `github-actions`. */
  app: { slug: string };
}

/**
 * A local stand-in for the GitHub REST endpoints the CI side uses: collaborator permission,
 * labels, comments, issues, reviews, check runs, the git data API and pulls. It keeps state like
 * GitHub (a comment updated in place, check runs listed by commit and name) and records every
 * request, so tests assert what was written and with which token. Endpoints it does not serve
 * (merging, approving) answer 404 and are recorded too.
 */
export interface FakeGithub {
  readonly baseUrl: string;
  readonly repo: string;
  readonly requests: GithubRequest[];
  /** login → role_name (admin, maintain, write, triage, read); absent: not a collaborator (404). */
  readonly roles: Map<string, string>;
  readonly issues: Map<number, FakeIssue>;
  readonly comments: Array<{ id: number; issue: number; body: string; user: { login: string; type: string } }>;
  readonly reviews: Array<{ pull: number; body: string; event: string }>;
  readonly checkRuns: FakeCheckRun[];
  readonly pulls: Array<{ number: number; title: string; body: string; head: string; base: string; draft: unknown }>;
  /** Files of the default branch head, and what commits wrote (path → content, null = deleted). */
  readonly files: Map<string, string>;
  readonly commits: Map<string, { tree: string; parents: string[]; message: string; files: Map<string, string | null>; modes: Map<string, string> }>;
  readonly refs: Map<string, string>;
  /** Modes of the default branch's files (absent: 100644), as its tree lists them. */
  readonly modes: Map<string, string>;
  /** Open pull requests `GET /pulls/{n}` describes: their head branch, commit and repository (a fork's is another). */
  readonly openPulls: Map<number, { ref: string; sha: string; repo: string; state?: string }>;
  /** When set, `POST /pulls` answers this (GitHub's 403 when Actions may not create pull requests). */
  refusePulls?: { status: number; message: string };
  /** Most items a list answers per page (GitHub: 100); lower it to make lists span pages. */
  maxPerPage: number;
  /** Lists of check runs answer every page but this one's items (a page lost on the way), when set. */
  dropCheckRunPage?: number;
  /** A pull request's files as `GET /pulls/{n}/files` lists them (filename, status, additions, deletions). */
  readonly pullFiles: Map<number, Array<{ filename: string; status: string; additions: number; deletions: number }>>;
  /** A workflow run's jobs as `GET /actions/runs/{id}/jobs` lists them (id, name, conclusion, steps). */
  readonly runJobs: Map<
    number,
    Array<{ id: number; name: string; conclusion: string | null; steps: Array<{ name: string; number: number; conclusion: string | null }> }>
  >;
  /** A job's plain-text log, served as GitHub does: a 302 to a download address. */
  readonly jobLogs: Map<number, string>;
  /** Requests that write (anything but GET). */
  writes(): GithubRequest[];
  close(): Promise<void>;
}

export async function startFakeGithub(options: {
  repo: string;
  defaultBranch?: string;
  headSha?: string;
  files?: Record<string, string>;
}): Promise<FakeGithub> {
  const defaultBranch = options.defaultBranch ?? 'main';
  const headSha = options.headSha ?? 'a'.repeat(40);
  const requests: GithubRequest[] = [];
  const roles = new Map<string, string>();
  const issues = new Map<number, FakeIssue>();
  const comments: FakeGithub['comments'] = [];
  const reviews: FakeGithub['reviews'] = [];
  const checkRuns: FakeCheckRun[] = [];
  const pulls: FakeGithub['pulls'] = [];
  const files = new Map(Object.entries(options.files ?? {}));
  const blobs = new Map<string, string>();
  const trees = new Map<string, { files: Map<string, string | null>; modes: Map<string, string> }>();
  const modes = new Map<string, string>();
  const openPulls: FakeGithub['openPulls'] = new Map();
  const commits: FakeGithub['commits'] = new Map([[headSha, { tree: 'tree-base', parents: [], message: 'base', files: new Map(), modes: new Map() }]]);
  const refs = new Map([[`heads/${defaultBranch}`, headSha]]);
  const pullFiles: FakeGithub['pullFiles'] = new Map();
  const runJobs: FakeGithub['runJobs'] = new Map();
  const jobLogs: FakeGithub['jobLogs'] = new Map();
  let counter = 100;
  const sha = (text: string) => createHash('sha1').update(text).digest('hex');
  const prefix = `/repos/${options.repo}`;

  const state = {
    maxPerPage: 100,
    dropCheckRunPage: undefined as number | undefined,
    refusePulls: undefined as { status: number; message: string } | undefined,
  };
  /** GitHub's `Link` header for a list `path` at `page` of `pages`. */
  const links = (path: string, query: URLSearchParams, pageNo: number, pages: number): Record<string, string> => {
    const at = (n: number) => {
      const q = new URLSearchParams(query);
      q.set('page', String(n));
      return `<${baseUrlOf()}${path}?${q.toString()}>`;
    };
    const parts = [...(pageNo < pages ? [`${at(pageNo + 1)}; rel="next"`, `${at(pages)}; rel="last"`] : [])];
    return parts.length ? { link: parts.join(', ') } : {};
  };
  let baseUrlOf = () => '';

  const route = (method: string, path: string, query: URLSearchParams, body: Record<string, unknown>): [number, unknown, Record<string, string>?] => {
    let m0: RegExpExecArray | null;
    // The download address a job's log redirects to (GitHub's is another host, signed, no token needed).
    if (method === 'GET' && (m0 = /^\/_downloads\/job-logs\/(\d+)$/.exec(path))) {
      const log = jobLogs.get(Number(m0[1]));
      return log === undefined ? [404, { message: 'Not Found' }] : [200, log, { 'content-type': 'text/plain' }];
    }
    if (!path.startsWith(prefix)) return [404, { message: 'Not Found' }];
    const p = path.slice(prefix.length);
    let m: RegExpExecArray | null;
    if (method === 'GET' && p === '') return [200, { full_name: options.repo, default_branch: defaultBranch }];
    if (method === 'GET' && (m = /^\/collaborators\/([^/]+)\/permission$/.exec(p))) {
      const role = roles.get(decodeURIComponent(m[1]));
      if (!role) return [404, { message: 'Not Found' }];
      const permission = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;
      return [200, { permission, role_name: role, user: { login: decodeURIComponent(m[1]) } }];
    }
    if (method === 'POST' && (m = /^\/issues\/(\d+)\/labels$/.exec(p))) {
      const issue = issues.get(Number(m[1]));
      if (!issue) return [404, { message: 'Not Found' }];
      for (const l of (body.labels as string[]) ?? []) if (!issue.labels.includes(l)) issue.labels.push(l);
      return [200, issue.labels.map((name) => ({ name }))];
    }
    if (method === 'DELETE' && (m = /^\/issues\/(\d+)\/labels\/([^/]+)$/.exec(p))) {
      // GitHub: 200 with the labels left, 404 "Label does not exist" when it is not on the item.
      const issue = issues.get(Number(m[1]));
      const name = decodeURIComponent(m[2]).toLowerCase();
      const at = issue?.labels.findIndex((l) => l.toLowerCase() === name) ?? -1;
      if (!issue || at < 0) return [404, { message: 'Label does not exist' }];
      issue.labels.splice(at, 1);
      return [200, issue.labels.map((label) => ({ name: label }))];
    }
    if (method === 'GET' && (m = /^\/issues\/(\d+)\/comments$/.exec(p)))
      return [
        200,
        page(
          comments.filter((c) => c.issue === Number(m![1])),
          query,
        ),
      ];
    if (method === 'POST' && (m = /^\/issues\/(\d+)\/comments$/.exec(p))) {
      const comment = { id: ++counter, issue: Number(m[1]), body: String(body.body), user: bot };
      comments.push(comment);
      return [201, comment];
    }
    if (method === 'PATCH' && (m = /^\/issues\/comments\/(\d+)$/.exec(p))) {
      const comment = comments.find((c) => c.id === Number(m![1]));
      if (!comment) return [404, { message: 'Not Found' }];
      comment.body = String(body.body);
      return [200, comment];
    }
    if (method === 'GET' && p === '/issues') return [200, page([...issues.values()], query)];
    if (method === 'POST' && p === '/issues') {
      const number = Math.max(0, ...issues.keys()) + 1;
      const issue = { number, title: String(body.title), body: String(body.body ?? ''), labels: [], user: bot };
      issues.set(number, issue);
      return [201, issue];
    }
    if (method === 'POST' && (m = /^\/pulls\/(\d+)\/reviews$/.exec(p))) {
      reviews.push({ pull: Number(m[1]), body: String(body.body), event: String(body.event) });
      return [200, { id: ++counter }];
    }
    if (method === 'GET' && (m = /^\/commits\/([^/]+)\/check-runs$/.exec(p))) {
      const ref = decodeURIComponent(m[1]);
      const name = query.get('check_name');
      const found = checkRuns.filter((c) => c.head_sha === ref && (!name || c.name === name)).reverse();
      const per = Math.min(Number(query.get('per_page') ?? 30), state.maxPerPage);
      const n = Number(query.get('page') ?? 1);
      const pages = Math.max(1, Math.ceil(found.length / per));
      const items = n === state.dropCheckRunPage ? [] : found.slice((n - 1) * per, n * per);
      return [200, { total_count: found.length, check_runs: items }, links(path, query, n, pages)];
    }
    if (method === 'GET' && p === '/commits') {
      // The history of a branch (its first parent chain), newest first, paged as GitHub pages it.
      let at = refs.get(`heads/${query.get('sha') ?? defaultBranch}`) ?? query.get('sha') ?? '';
      const chain: Array<{ sha: string }> = [];
      while (commits.has(at)) {
        chain.push({ sha: at });
        at = commits.get(at)!.parents[0] ?? '';
      }
      const per = Math.min(Number(query.get('per_page') ?? 30), state.maxPerPage);
      const n = Number(query.get('page') ?? 1);
      return [200, chain.slice((n - 1) * per, n * per), links(path, query, n, Math.max(1, Math.ceil(chain.length / per)))];
    }
    if (method === 'GET' && p === '/actions/runs') {
      // Every check run here was written by a workflow run on its commit: those are the runs listed.
      const since = Date.parse((query.get('created') ?? '').replace(/^>=/, '')) || 0;
      const runs = checkRuns.filter((c) => Date.parse(c.started_at) >= since).reverse();
      return [200, { total_count: runs.length, workflow_runs: runs.map((c) => ({ id: c.id, head_sha: c.head_sha, created_at: c.started_at })) }];
    }
    if (method === 'POST' && p === '/check-runs') {
      const run: FakeCheckRun = {
        id: ++counter,
        name: String(body.name),
        head_sha: String(body.head_sha),
        conclusion: String(body.conclusion),
        started_at: new Date().toISOString(),
        output: body.output as FakeCheckRun['output'],
        ...(body.details_url ? { details_url: String(body.details_url) } : {}),
        ...(body.external_id ? { external_id: String(body.external_id) } : {}),
        app: { slug: 'github-actions' },
      };
      checkRuns.push(run);
      return [201, run];
    }
    if (method === 'GET' && (m = /^\/git\/ref\/(.+)$/.exec(p))) {
      const target = refs.get(decodeURIComponent(m[1]));
      return target ? [200, { ref: `refs/${m[1]}`, object: { sha: target } }] : [404, { message: 'Not Found' }];
    }
    if (method === 'GET' && (m = /^\/git\/commits\/([0-9a-f]+)$/.exec(p))) {
      const commit = commits.get(m[1]);
      return commit ? [200, { sha: m[1], tree: { sha: commit.tree }, message: commit.message }] : [404, { message: 'Not Found' }];
    }
    if (method === 'GET' && (m = /^\/contents\/(.+)$/.exec(p))) {
      const file = files.get(m[1].split('/').map(decodeURIComponent).join('/'));
      return file === undefined ? [404, { message: 'Not Found' }] : [200, { content: Buffer.from(file).toString('base64'), encoding: 'base64' }];
    }
    if (method === 'POST' && p === '/git/blobs') {
      const content = Buffer.from(String(body.content), body.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8');
      const id = sha(`blob ${content}`);
      blobs.set(id, content);
      return [201, { sha: id }];
    }
    if (method === 'GET' && (m = /^\/git\/trees\/(.+)$/.exec(p))) {
      // The base tree, one level at a time: `tree-base` is the root, `tree-base:<dir>` a folder of it.
      const id = decodeURIComponent(m[1]);
      if (id !== 'tree-base' && !id.startsWith('tree-base:')) return [404, { message: 'Not Found' }];
      const dir = id === 'tree-base' ? '' : `${id.slice('tree-base:'.length)}/`;
      const level = new Map<string, { path: string; mode: string; type: string; sha: string }>();
      for (const file of files.keys()) {
        if (!file.startsWith(dir)) continue;
        const [name, ...deeper] = file.slice(dir.length).split('/');
        level.set(
          name,
          deeper.length
            ? { path: name, mode: '040000', type: 'tree', sha: `tree-base:${dir}${name}` }
            : { path: name, mode: modes.get(file) ?? '100644', type: 'blob', sha: sha(`blob ${files.get(file)}`) },
        );
      }
      return [200, { sha: id, tree: [...level.values()], truncated: false }];
    }
    if (method === 'POST' && p === '/git/trees') {
      const entries = new Map<string, string | null>();
      const entryModes = new Map<string, string>();
      for (const e of body.tree as Array<{ path: string; sha: string | null; mode: string }>) {
        entries.set(e.path, e.sha === null ? null : (blobs.get(e.sha) ?? ''));
        entryModes.set(e.path, e.mode);
      }
      const id = sha(`tree ${JSON.stringify([...entries])} ${JSON.stringify([...entryModes])}`);
      trees.set(id, { files: entries, modes: entryModes });
      return [201, { sha: id }];
    }
    if (method === 'POST' && p === '/git/commits') {
      const id = sha(`commit ${String(body.tree)} ${String(body.message)}`);
      commits.set(id, {
        tree: String(body.tree),
        parents: body.parents as string[],
        message: String(body.message),
        files: trees.get(String(body.tree))?.files ?? new Map(),
        modes: trees.get(String(body.tree))?.modes ?? new Map(),
      });
      return [201, { sha: id }];
    }
    if (method === 'POST' && p === '/git/refs') {
      refs.set(String(body.ref).replace(/^refs\//, ''), String(body.sha));
      return [201, { ref: body.ref }];
    }
    if (method === 'GET' && (m = /^\/pulls\/(\d+)$/.exec(p))) {
      const pull = openPulls.get(Number(m[1]));
      if (!pull) return [404, { message: 'Not Found' }];
      return [200, { number: Number(m[1]), state: pull.state ?? 'open', head: { ref: pull.ref, sha: pull.sha, repo: { full_name: pull.repo } } }];
    }
    if (method === 'PATCH' && (m = /^\/git\/refs\/(heads\/.+)$/.exec(p))) {
      // A fast-forward only (force: false), as GitHub: the new commit's parent must be the branch's head.
      const ref = m[1].split('/').map(decodeURIComponent).join('/');
      const at = refs.get(ref);
      if (!at) return [422, { message: 'Reference does not exist' }];
      if (body.force !== true && commits.get(String(body.sha))?.parents[0] !== at) return [422, { message: 'Update is not a fast forward' }];
      refs.set(ref, String(body.sha));
      return [200, { ref: `refs/${ref}`, object: { sha: body.sha } }];
    }
    if (method === 'DELETE' && (m = /^\/git\/refs\/(heads\/.+)$/.exec(p))) {
      const ref = m[1].split('/').map(decodeURIComponent).join('/');
      if (!refs.has(ref)) return [422, { message: 'Reference does not exist' }];
      refs.delete(ref);
      return [204, undefined];
    }
    if (method === 'GET' && (m = /^\/pulls\/(\d+)\/files$/.exec(p))) {
      const listed = pullFiles.get(Number(m[1]));
      return listed ? [200, page(listed, query)] : [404, { message: 'Not Found' }];
    }
    if (method === 'GET' && (m = /^\/actions\/runs\/(\d+)\/jobs$/.exec(p))) {
      const jobs = runJobs.get(Number(m[1]));
      return jobs ? [200, { total_count: jobs.length, jobs: page(jobs, query) }] : [404, { message: 'Not Found' }];
    }
    if (method === 'GET' && (m = /^\/actions\/jobs\/(\d+)\/logs$/.exec(p)))
      return jobLogs.has(Number(m[1])) ? [302, '', { location: `${baseUrlOf()}/_downloads/job-logs/${m[1]}` }] : [404, { message: 'Not Found' }];
    if (method === 'POST' && p === '/pulls') {
      if (state.refusePulls) return [state.refusePulls.status, { message: state.refusePulls.message }];
      const number = 1000 + pulls.length + 1;
      pulls.push({ number, title: String(body.title), body: String(body.body), head: String(body.head), base: String(body.base), draft: body.draft });
      return [201, { number, draft: body.draft }];
    }
    return [404, { message: 'Not Found' }];
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const method = req.method ?? 'GET';
      requests.push({ method, path: url.pathname, query: url.searchParams, body, token });
      const [status, answer, headers] = route(method, url.pathname, url.searchParams, body ?? {});
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof answer === 'string' ? answer : JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  baseUrlOf = () => `http://127.0.0.1:${port}`;
  return {
    get maxPerPage() {
      return state.maxPerPage;
    },
    set maxPerPage(n: number) {
      state.maxPerPage = n;
    },
    get refusePulls() {
      return state.refusePulls;
    },
    set refusePulls(answer: { status: number; message: string } | undefined) {
      state.refusePulls = answer;
    },
    get dropCheckRunPage() {
      return state.dropCheckRunPage;
    },
    set dropCheckRunPage(n: number | undefined) {
      state.dropCheckRunPage = n;
    },
    baseUrl: `http://127.0.0.1:${port}`,
    repo: options.repo,
    requests,
    roles,
    issues,
    comments,
    reviews,
    checkRuns,
    pulls,
    files,
    commits,
    refs,
    modes,
    openPulls,
    pullFiles,
    runJobs,
    jobLogs,
    writes: () => requests.filter((r) => r.method !== 'GET'),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function page<T>(items: T[], query: URLSearchParams): T[] {
  const per = Number(query.get('per_page') ?? 30);
  const n = Number(query.get('page') ?? 1);
  return items.slice((n - 1) * per, n * per);
}
