// One call to the service over undici: auth headers, timeouts, bounded retries, response validation.
// The API key stays inside its source and is only ever put in the request headers. With an auth gate
// (the operator), a rejected key holds every call back operator-wide (auth-gate.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { AuthGate, type AuthGateOptions, type ProbeAnswer } from './auth-gate.ts';
import {
  type ContractIssue,
  contractIssues,
  parseErrorBody,
  ServiceContractError,
  ServiceError,
  type ServiceErrorInit,
} from './errors.ts';
import { type ApiKeySource, fixedKey } from './key-source.ts';
import { type ListedPage, pageReader } from './pages.ts';
import {
  defaultRetryPolicy,
  networkCode,
  networkRetryable,
  networkTransient,
  parseRetryAfter,
  type RetryPolicy,
  retryDelay,
  statusRetryable,
  statusTransient,
} from './retry.ts';

export interface Timeouts {
  /** Establishing a TCP (and TLS) connection. */
  connectMs: number;
  /** From sending the request to the complete response headers. */
  headersMs: number;
  /** Between two chunks of the response body. */
  bodyMs: number;
}

export const defaultTimeouts: Timeouts = { connectMs: 5_000, headersMs: 30_000, bodyMs: 30_000 };

/** One attempt, as seen by metrics. */
export interface CallRecord {
  method: string;
  /** Endpoint template, e.g. `GET /v2/deployments/{deployment_id}/revisions`. */
  endpoint: string;
  status: number | 'error';
  durationMs: number;
  /** 1 for the first attempt of a call, 2 for its first retry, … */
  attempt: number;
  /** Parts of a 2xx answer that broke the contract: list items left out, or 1 for an unusable body. */
  contractViolations: number;
}

export interface TransportOptions {
  baseUrl: string;
  /** The key, or where to read it (a file source is read again when it changes and after a 401). */
  apiKey: string | ApiKeySource;
  tenantId?: string | undefined;
  connections?: number | undefined;
  timeouts?: Partial<Timeouts> | undefined;
  retry?: Partial<RetryPolicy> | undefined;
  onCall?: ((call: CallRecord) => void) | undefined;
  /** Send through this dispatcher instead of an own keep-alive pool; the caller closes it. */
  dispatcher?: Dispatcher | undefined;
  /** Hold calls back operator-wide while the service rejects the key (a long-running process wants this). */
  authGate?: AuthGateOptions | undefined;
}

/** What a probe of the auth gate asks: the cheapest call every key may make. */
const probeSpec: CallSpec<undefined> = {
  method: 'GET',
  template: '/v2/deployments',
  query: { limit: 1 },
  response: undefined,
};

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type QueryValue = string | number | boolean | readonly string[] | null | undefined;

export interface CallSpec<T> {
  method: Method;
  /** Path template, e.g. `/v2/deployments/{deployment_id}`. */
  template: string;
  /** Path parameters, filled into the template (URI-encoded). */
  params?: Record<string, string>;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Schema of a success body; undefined when the success response carries none (204). */
  response: z.ZodType<T> | undefined;
}

/** A list call (§2.14): the page wrapper is judged whole, each item on its own (pages.ts). */
export interface PageCallSpec<I> extends Omit<CallSpec<unknown>, 'response'> {
  item: z.ZodType<I>;
}

/**
 * Judges a 2xx body: its value, with how many parts of it were left out for breaking the contract, or
 * the issues that make it unusable. `contractError` words the issues of a part left out.
 */
export type BodyReader<T> = (
  json: unknown,
  contractError: (issues: ContractIssue[]) => ServiceContractError,
) => { value: T; violations: number } | { issues: ContractIssue[] };

/** The whole body must match the schema. */
const wholeBody =
  <T>(schema: z.ZodType<T>): BodyReader<T> =>
  (json) => {
    const parsed = schema.safeParse(json);
    return parsed.success ? { value: parsed.data, violations: 0 } : { issues: contractIssues(parsed.error) };
  };

export interface CallOptions {
  signal?: AbortSignal | undefined;
}

/** What an attempt sends: a call or a list call, without how its answer is judged. */
export type Request = Omit<CallSpec<unknown>, 'response'>;

type Outcome<T> = { ok: true; value: T } | { ok: false; error: ServiceError; retryNow: boolean };

/** Query string with lists comma-joined (as §4.9/§4.10 ask) and absent values left out. */
export function encodeQuery(query: Record<string, QueryValue> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    params.append(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

export function fillTemplate(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(value);
  });
}

/** Origin and path prefix of a base URL: `https://host/api/` → `https://host`, `/api`. */
export function splitBaseUrl(baseUrl: string): { origin: string; prefix: string } {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`service base URL must be http(s), got ${url.protocol}`);
  }
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
}

export class Transport {
  readonly #origin: string;
  readonly #prefix: string;
  readonly #key: ApiKeySource;
  readonly #gate: AuthGate | undefined;
  /** Aborts a probe in flight when the transport closes: closing waits for requests in flight. */
  readonly #probeAbort = new AbortController();
  readonly #headers: Record<string, string>;
  readonly #timeouts: Timeouts;
  readonly #retry: RetryPolicy;
  readonly #onCall: ((call: CallRecord) => void) | undefined;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  #closing: Promise<void> | undefined;

  constructor(options: TransportOptions) {
    const { origin, prefix } = splitBaseUrl(options.baseUrl);
    this.#origin = origin;
    this.#prefix = prefix;
    this.#key = typeof options.apiKey === 'string' ? fixedKey(options.apiKey) : options.apiKey;
    this.#headers = { accept: 'application/json' };
    if (options.tenantId) this.#headers['x-tenant-id'] = options.tenantId;
    this.#timeouts = { ...defaultTimeouts, ...options.timeouts };
    this.#retry = { ...defaultRetryPolicy, ...options.retry };
    this.#onCall = options.onCall;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({
        connections: options.connections ?? 16,
        connect: { timeout: this.#timeouts.connectMs },
        headersTimeout: this.#timeouts.headersMs,
        bodyTimeout: this.#timeouts.bodyMs,
      });
    this.#gate = options.authGate && new AuthGate(this.#key, (key) => this.#probe(key), options.authGate);
  }

  /** The auth gate, when this transport has one. */
  get authGate(): AuthGate | undefined {
    return this.#gate;
  }

  /** Closes the own pool (waiting for calls in flight); an injected dispatcher is left to its owner. */
  close(): Promise<void> {
    this.#gate?.stop();
    this.#probeAbort.abort();
    if (!this.#ownsDispatcher) return Promise.resolve();
    this.#closing ??= this.#dispatcher.close();
    return this.#closing;
  }

  call<T>(spec: CallSpec<T>, options: CallOptions = {}): Promise<T> {
    return this.#call(spec, spec.response && wholeBody(spec.response), options);
  }

  /** A call whose 2xx body `read` judges (e.g. entry by entry, as a list). */
  callReading<T>(spec: Request, read: BodyReader<T>, options: CallOptions = {}): Promise<T> {
    return this.#call(spec, read, options);
  }

  /** A list call: the items that hold, and each one left out for breaking the contract. */
  callPage<I>(spec: PageCallSpec<I>, options: CallOptions = {}): Promise<ListedPage<I>> {
    return this.#call(spec, pageReader(spec.item), options);
  }

  async #call<T>(spec: Request, read: BodyReader<T> | undefined, options: CallOptions): Promise<T> {
    const { signal } = options;
    signal?.throwIfAborted();
    const deadline = performance.now() + this.#retry.maxElapsedMs;
    for (let attempt = 1; ; attempt++) {
      this.#gate?.check(`${spec.method} ${spec.template}`, fillTemplate(spec.template, spec.params));
      const key = this.#key.key();
      const outcome = await this.#attempt(spec, read, attempt, deadline, signal, key);
      if (outcome.ok) this.#gate?.observe(key, 200, '');
      else this.#gate?.observe(key, outcome.error.status, outcome.error.detail);
      if (outcome.ok) return outcome.value;
      const { error } = outcome;
      if (!outcome.retryNow || attempt >= this.#retry.maxAttempts) throw error;
      const delay = retryDelay(this.#retry, attempt, error.retryAfterMs);
      // Bounded in time: a wait that would end past the budget is not started.
      if (performance.now() + delay >= deadline) throw error;
      try {
        await sleep(delay, undefined, { signal });
      } catch (e) {
        throw signal?.aborted ? signal.reason : e;
      }
    }
  }

  /**
   * Asks the service once, past the auth gate, whether it accepts the current key (the gate's probe
   * call), and tells the gate what it learnt.
   */
  async checkKey(signal?: AbortSignal): Promise<ProbeAnswer> {
    const key = this.#key.key();
    const deadline = performance.now() + this.#timeouts.headersMs + this.#timeouts.bodyMs;
    const aborted = signal ? AbortSignal.any([signal, this.#probeAbort.signal]) : this.#probeAbort.signal;
    const outcome = await this.#attempt(probeSpec, undefined, 1, deadline, aborted, key);
    const answer = outcome.ok
      ? { status: 200, detail: '' }
      : { status: outcome.error.status, detail: outcome.error.detail };
    this.#gate?.probed(key, answer);
    return answer;
  }

  /** One attempt of the auth gate's probe, sent past the gate with `key`. */
  async #probe(key: string): Promise<ProbeAnswer> {
    const deadline = performance.now() + this.#timeouts.headersMs + this.#timeouts.bodyMs;
    const outcome = await this.#attempt(probeSpec, undefined, 1, deadline, this.#probeAbort.signal, key);
    return outcome.ok
      ? { status: 200, detail: '' }
      : { status: outcome.error.status, detail: outcome.error.detail };
  }

  async #attempt<T>(
    spec: Request,
    read: BodyReader<T> | undefined,
    attempt: number,
    deadline: number,
    signal: AbortSignal | undefined,
    key: string,
  ): Promise<Outcome<T>> {
    const path = fillTemplate(spec.template, spec.params);
    const endpoint = `${spec.method} ${spec.template}`;
    const budget = AbortSignal.timeout(Math.max(1, Math.ceil(deadline - performance.now())));
    const headers: Record<string, string> = { ...this.#headers, 'x-api-key': key };
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    }
    const started = performance.now();
    let answered: number | undefined;
    const record = (status: number | 'error', contractViolations = 0) =>
      this.#onCall?.({
        method: spec.method,
        endpoint,
        status,
        durationMs: (answered ?? performance.now()) - started,
        attempt,
        contractViolations,
      });
    const fail = (init: Omit<ServiceErrorInit, 'endpoint' | 'path' | 'attempts'>) =>
      new ServiceError({
        ...init,
        endpoint,
        path,
        attempts: attempt,
        ...(init.status === 401 ? { keySource: this.#key.origin } : {}),
      });
    const redact = (text: string) => this.#redact(text, key);

    let status: number;
    let statusText: string;
    let text: string;
    let retryAfter: string | string[] | undefined;
    try {
      const res = await this.#dispatcher.request({
        origin: this.#origin,
        path: `${this.#prefix}${path}${encodeQuery(spec.query)}`,
        method: spec.method,
        headers,
        body,
        signal: signal ? AbortSignal.any([signal, budget]) : budget,
        headersTimeout: this.#timeouts.headersMs,
        bodyTimeout: this.#timeouts.bodyMs,
      });
      status = res.statusCode;
      statusText = res.statusText;
      retryAfter = res.headers['retry-after'];
      text = await res.body.text();
      answered = performance.now();
    } catch (e) {
      record('error');
      if (signal?.aborted) throw signal.reason;
      if (budget.aborted) {
        const detail = `no complete response within the ${this.#retry.maxElapsedMs} ms budget`;
        return { ok: false, retryNow: false, error: fail({ status: undefined, detail, retryable: true }) };
      }
      const code = networkCode(e) ?? (e as { code?: unknown }).code;
      const message = e instanceof Error ? e.message : String(e);
      const detail = redact(typeof code === 'string' ? `${code}: ${message}` : message);
      return {
        ok: false,
        retryNow: networkRetryable(spec.method, e),
        error: fail({ status: undefined, detail, retryable: networkTransient(e), cause: e }),
      };
    }
    if (status < 200 || status >= 300) {
      record(status);
      const parsed = parseErrorBody(text, statusText);
      return {
        ok: false,
        retryNow: statusRetryable(spec.method, status),
        error: fail({
          status,
          detail: redact(parsed.detail),
          issues: parsed.issues,
          retryable: statusTransient(status),
          retryAfterMs: parseRetryAfter(retryAfter),
        }),
      };
    }
    if (read === undefined) {
      record(status);
      return { ok: true, value: undefined as T };
    }
    const contractError = (issues: ContractIssue[]) =>
      new ServiceContractError({ status, endpoint, path, attempts: attempt, contractIssues: issues });
    const unusable = (issues: ContractIssue[]) => {
      record(status, 1);
      return { ok: false as const, retryNow: false, error: contractError(issues) };
    };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return unusable([{ path: '(body)', message: 'not JSON' }]);
    }
    const judged = read(json, contractError);
    if ('issues' in judged) return unusable(judged.issues);
    record(status, judged.violations);
    return { ok: true, value: judged.value };
  }

  /** The service might echo a credential back in an error text; it never reaches our messages. */
  #redact(text: string, sent: string): string {
    for (const key of new Set([sent, this.#key.key()]))
      if (key !== '') text = text.replaceAll(key, '[redacted]');
    return text;
  }
}
