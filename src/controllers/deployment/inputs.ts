// Resolves what a Deployment resource refers to: Kubernetes Secrets, a Listener resource, a code-host
// repository. Secrets come from the SecretReader and Listeners from an informer cache (their watches
// wake the resource when they change); repositories from the service, cached for a few minutes.
import type { DeploymentResource } from '../../api/deployment.ts';
import type { ListenerResource } from '../../api/listener.ts';
import type { ServiceClient } from '../../service/client.ts';
import { ServiceError } from '../../service/errors.ts';
import type { Repository } from '../../service/wire.ts';
import type { Problem } from '../managed/conditions.ts';
import type { SecretLookup } from '../secret-reader.ts';
import { describeWorkspace, type Referrer, type WorkspaceKey } from '../workspace/refs.ts';
import type { ResolvedInputs } from './desired.ts';

export interface InputSources {
  secret(namespace: string, name: string): Promise<SecretLookup>;
  listener(name: string): ListenerResource | undefined;
  repository(owner: string, name: string, hosted: boolean): Promise<Repository | undefined>;
  /** The workspace a resource acts in: a Deployment may use only a Listener of its own. */
  workspaceOf(cr: Referrer): WorkspaceKey;
}

export type InputResult = { inputs: ResolvedInputs } | { problem: Problem };

const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

export async function resolveInputs(cr: DeploymentResource, sources: InputSources): Promise<InputResult> {
  const namespace = cr.metadata.namespace!;
  const { spec } = cr;
  const byName = new Map<string, string>();

  for (const { secretRef } of spec.secretsFrom ?? []) {
    const secret = await sources.secret(namespace, secretRef.name);
    if ('missing' in secret)
      return secretProblem(secret.missing, `Secret ${namespace}/${secretRef.name}`, 'spec.secretsFrom');
    for (const [key, value] of Object.entries(secret.data)) byName.set(key, decode(value));
  }
  // Entries of spec.secrets win over secretsFrom.
  for (const entry of spec.secrets ?? []) {
    if (entry.value !== undefined) {
      byName.set(entry.name, entry.value);
      continue;
    }
    const ref = entry.valueFrom!.secretKeyRef;
    const secret = await sources.secret(namespace, ref.name);
    const where = `secret ${entry.name}`;
    if ('missing' in secret && (secret.missing === 'Forbidden' || !ref.optional))
      return secretProblem(secret.missing, `Secret ${namespace}/${ref.name}`, where);
    const data = 'data' in secret ? secret.data[ref.key] : undefined;
    if (data !== undefined) byName.set(entry.name, decode(data));
    else if (!ref.optional)
      return secretProblem('NotFound', `key ${ref.key} of Secret ${namespace}/${ref.name}`, where);
  }
  const inputs: ResolvedInputs = {
    secrets: [...byName]
      .map(([name, value]) => ({ name, value }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };

  if (spec.listenerRef) {
    const listener = sources.listener(spec.listenerRef.name);
    const [mine, its] = [sources.workspaceOf(cr), listener && sources.workspaceOf(listener)];
    if (its !== undefined && its !== mine)
      return {
        problem: {
          reason: 'ListenerNotReady',
          message: `Listener ${spec.listenerRef.name} acts in ${describeWorkspace(its)} and this resource in ${describeWorkspace(mine)}: spec.listenerRef must name a Listener of the same workspace`,
          stalled: true,
        },
      };
    const listenerId = listener?.status?.listenerId;
    if (!listenerId) {
      return {
        problem: {
          reason: 'ListenerNotReady',
          message: `Listener ${spec.listenerRef.name} has no listenerId yet`,
          stalled: false,
        },
      };
    }
    inputs.listenerId = listenerId;
  }

  if (spec.repository) {
    const { owner, name, hosted = false, branch } = spec.repository;
    const repo = await sources.repository(owner, name, hosted);
    if (!repo) {
      // Found on the other side, it was only the wrong kind of integration: say which setting fixes it.
      const other = await sources.repository(owner, name, !hosted);
      const hint = other
        ? `; it is in a ${hosted ? 'installed' : 'managed'} integration: set spec.repository.hosted: ${!hosted}`
        : '';
      return {
        problem: {
          reason: 'RepositoryNotFound',
          message: `repository ${owner}/${name} is in no ${hosted ? 'managed ' : ''}code-host integration${hint}`,
          stalled: true,
        },
      };
    }
    inputs.repository = {
      integrationId: repo.host_integration_id,
      repoUrl: repo.url,
      branch: branch ?? repo.default_branch,
    };
  }
  return { inputs };
}

/** How soon a Secret the operator was forbidden to read is tried again. */
const forbiddenRetryMs = 30_000;

/**
 * A missing Secret wakes the resource through the Secrets' watch when it appears. A forbidden one is the
 * operator's RBAC, which nothing here watches: the reconciler asks again after forbiddenRetryMs.
 */
function secretProblem(missing: 'NotFound' | 'Forbidden', what: string, where: string): InputResult {
  return {
    problem:
      missing === 'Forbidden'
        ? {
            reason: 'SecretForbidden',
            message: `the operator may not read ${what} (${where}); grant it get on that Secret`,
            stalled: false,
            retryAfterMs: forbiddenRetryMs,
          }
        : { reason: 'SecretNotFound', message: `${what} (${where}) not found`, stalled: false },
  };
}

/** Finds repositories by owner/name across the integrations, remembering answers for `ttlMs`. */
export function repositoryFinder(client: ServiceClient, ttlMs = 5 * 60_000) {
  const cache = new Map<string, { at: number; repos: Promise<Repository[]> }>();
  const load = (hosted: boolean) => {
    const key = hosted ? 'hosted' : 'installed';
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < ttlMs) return hit.repos;
    const repos = (async () => {
      const all: Repository[] = [];
      for (const integration of await client.listIntegrations()) {
        try {
          all.push(
            ...(await (hosted ? client.listHostedRepos(integration.id) : client.listRepos(integration.id))),
          );
        } catch (err) {
          // An installed integration has no hosted repositories, and the other way round.
          if (!(err instanceof ServiceError && err.isNotFound)) throw err;
        }
      }
      return all;
    })();
    repos.catch(() => cache.delete(key));
    cache.set(key, { at: Date.now(), repos });
    return repos;
  };
  return async (owner: string, name: string, hosted: boolean) =>
    (await load(hosted)).find((r) => r.owner === owner && r.name === name);
}
