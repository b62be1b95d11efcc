// Types for modelServer.mjs.

/** The scripted model server running as a child process, with its control API. */
export interface ModelServer {
  /** http://127.0.0.1:<port> (control API and Anthropic base URL) */
  url: string;
  /** `${url}/v1`, for OpenAI-compatible clients */
  openaiBaseUrl: string;
  anthropicBaseUrl: string;
  /** Appends steps, e.g. [{ text: 'hi' }] or [{ toolCalls: [{ name, arguments }] }]. */
  script(steps: unknown[]): Promise<unknown>;
  reset(): Promise<unknown>;
  /** Lets streams held by a step's `holdAfterChunks` go on. */
  release(): Promise<unknown>;
  /** Requests received so far (see test/fixtures/modelServer.ts RecordedRequest); with a route, only those carrying its marker. */
  requests(route?: string): Promise<unknown>;
  stop(): Promise<void>;
}

export const modelServerMain: string;
export function modelServerAvailable(): boolean;
export function startModelServer(options?: { env?: Record<string, string>; demo?: boolean; requireRoute?: boolean }): Promise<ModelServer>;
