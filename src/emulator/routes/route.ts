// What an interface route is: a method, the interface's path template, and a handler that gets the
// authenticated caller and the parsed request and returns a status and body (or throws an ApiError).
import type { EmulatorConfig } from '../config.ts';
import type { RawQuery } from '../query.ts';
import type { State } from '../store.ts';

export interface Caller {
  tenantId: string;
  userId: string;
  canManageListeners: boolean;
}

export interface RequestContext {
  state: State;
  config: EmulatorConfig;
  caller: Caller;
  now: number;
  params: Record<string, string>;
  query: RawQuery;
  body: unknown;
}

export interface Answer {
  status: number;
  body?: unknown;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** As the interface writes it, e.g. /v2/deployments/{deployment_id}/revisions. */
  path: string;
  handle(ctx: RequestContext): Answer;
}

export const ok = (body: unknown): Answer => ({ status: 200, body });
export const created = (body: unknown): Answer => ({ status: 201, body });
export const noContent = (): Answer => ({ status: 204 });
