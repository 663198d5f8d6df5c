// Deployments and their revisions (interface §4.6, §4.8–4.10) plus the real service's
// DELETE /v2/deployments/{deployment_id}. The hosted profile's reads by id are in reads.ts.
import { createHash, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { RevisionStatus, Source } from '../../service/wire.ts';
import type { EmulatorConfig } from '../config.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { isRemoteReconciled, matchesDeployment, matchesRevision } from '../filters.ts';
import { detourOf, isInFlightAt, outcomeOf, revisionStateAt, stoppedStatus } from '../lifecycle.ts';
import type { EmulatedSourceConfig } from '../profile-wire.ts';
import { type ProfileRules, rulesOf } from '../profiles.ts';
import { paginate, parseDeploymentQuery, parseRevisionQuery } from '../query.ts';
import {
  deploymentOf,
  listenerOf,
  purgeDeleted,
  type State,
  type StoredDeployment,
  type StoredRevision,
} from '../store.ts';
import {
  assertCodehostRepo,
  assertImmutablesUnchanged,
  assertRequiredFields,
  assertSecretReferences,
  assertSourceAvailable,
  assertUniqueSecretNames,
  fullRevisionConfig,
  fullSourceConfig,
  merge,
  mergeKeeping,
  parseBody,
} from '../validate.ts';
import { deploymentView, revisionViews } from '../views.ts';
import { created, noContent, ok, type RequestContext, type Route } from './route.ts';

/** A stand-in for the head commit of repo_ref: the same repository and ref always give the same sha. */
const commitSha = (repoUrl: string | null | undefined, ref: string | null | undefined): string =>
  createHash('sha1')
    .update(`${repoUrl ?? ''}@${ref ?? ''}`)
    .digest('hex');

function newRevision(
  source: Source,
  config: StoredRevision['config'],
  sourceConfig: EmulatedSourceConfig,
  now: number,
  rules: ProfileRules,
): StoredRevision {
  return {
    id: randomUUID(),
    source,
    config,
    commitSha: source === 'codehost' ? commitSha(sourceConfig.repo_url, config.repo_ref) : null,
    startedAt: now,
    outcome: outcomeOf(config, rules.outcomeMarkers),
    detour: detourOf(config, rules.detourMarkers),
    stopped: null,
  };
}

/** Stops the in-flight revision, if any, in the status `stop` gives for where it was. */
function stopInFlight(
  d: StoredDeployment,
  config: EmulatorConfig,
  now: number,
  stop: (status: RevisionStatus) => RevisionStatus,
): void {
  const latest = d.revisions.at(-1)!;
  if (!isInFlightAt(latest, config.stepMs, now)) return;
  latest.stopped = { status: stop(revisionStateAt(latest, config.stepMs, now).status), at: now };
}

export function findDeployment({ state, caller, params }: RequestContext): StoredDeployment {
  const id = params.deployment_id!;
  const d = deploymentOf(state, caller.tenantId, id);
  if (!d) throw notFound(`deployment ${id}`);
  return d;
}

const nameTaken = (state: State, tenantId: string, name: string): boolean =>
  state.tracingProjects.some((p) => p.tenant_id === tenantId && p.name === name) ||
  [...state.deployments.values()].some((d) => d.tenantId === tenantId && d.name === name);

export const deploymentRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/deployments',
    handle({ state, config, caller, now, query }) {
      const q = parseDeploymentQuery(query, rulesOf(config).deploymentTypes);
      const items = [...state.deployments.values()]
        .filter((d) => d.tenantId === caller.tenantId)
        .reverse()
        .map((d) => ({ view: deploymentView(d, config, now), tags: state.seed.tags[d.name] ?? [] }))
        .filter(({ view, tags }) => matchesDeployment(view, q, tags))
        .map(({ view }) => view);
      return ok(paginate(items, q));
    },
  },
  {
    method: 'POST',
    path: '/v2/deployments',
    handle({ state, config, caller, now, body }) {
      const rules = rulesOf(config);
      const req = parseBody(rules.createRequest, body);
      assertSourceAvailable(req.source, config.mode);
      assertRequiredFields(req.source, req.source_config, req.source_revision_config);
      if (req.source === 'codehost') assertCodehostRepo(req.source_config, state.seed.integrations);
      const listenerId = req.source_config.listener_id;
      if (listenerId != null && !listenerOf(state, caller.tenantId, listenerId)) {
        throw badRequest(`listener ${listenerId} not found`);
      }
      assertSecretReferences(req.source, req.secret_references);
      assertUniqueSecretNames(req.secrets);
      if (nameTaken(state, caller.tenantId, req.name)) {
        throw conflict(`a deployment or tracing project named ${req.name} already exists`);
      }
      const sourceConfig = fullSourceConfig(req.source_config);
      const d: StoredDeployment = {
        id: randomUUID(),
        tenantId: caller.tenantId,
        name: req.name,
        source: req.source,
        sourceConfig,
        secrets: req.secrets,
        secretReferences: req.secret_references ?? null,
        createdAt: now,
        modifiedAt: now,
        deletedAt: null,
        revisions: [
          newRevision(req.source, fullRevisionConfig(req.source_revision_config), sourceConfig, now, rules),
        ],
      };
      state.deployments.set(d.id, d);
      state.tracingProjects.push({ name: d.name, tenant_id: d.tenantId, deployment_id: d.id });
      return created(deploymentView(d, config, now));
    },
  },
  {
    method: 'PATCH',
    path: '/v2/deployments/{deployment_id}',
    handle(ctx) {
      const { config, now } = ctx;
      const rules = rulesOf(config);
      const req = parseBody(rules.patchRequest, ctx.body);
      const d = findDeployment(ctx);
      if (d.deletedAt !== null) throw conflict(`deployment ${d.id} is being deleted`);
      assertImmutablesUnchanged(d.sourceConfig, req.source_config);
      const sourceConfig = mergeKeeping(d.sourceConfig, req.source_config, rules.keptSourceConfigFields);
      const latest = d.revisions.at(-1)!;
      const revisionSource = req.revision_source ?? d.source;
      const revisionConfig = merge(latest.config, req.source_revision_config);
      const sourceChanges = revisionSource !== latest.source;
      const wantsRevision =
        (req.source_revision_config != null &&
          (sourceChanges || !isDeepStrictEqual(revisionConfig, latest.config))) ||
        (req.revision_source != null && sourceChanges) ||
        req.secrets != null ||
        req.secret_references != null;
      if (wantsRevision) {
        assertSourceAvailable(revisionSource, config.mode, 'revision_source');
        assertRequiredFields(revisionSource, sourceConfig, revisionConfig);
      }
      assertSecretReferences(d.source, req.secret_references);
      assertUniqueSecretNames(req.secrets);
      if (wantsRevision && isInFlightAt(latest, config.stepMs, now)) {
        if (config.busy === 'reject')
          throw conflict(`deployment ${d.id} has a revision in progress (${latest.id})`);
        stopInFlight(d, config, now, rules.supersededStatus);
      }
      const changed =
        wantsRevision ||
        !isDeepStrictEqual(sourceConfig, d.sourceConfig) ||
        (req.secrets != null && !isDeepStrictEqual(req.secrets, d.secrets));
      d.sourceConfig = sourceConfig;
      if (req.secrets != null) d.secrets = req.secrets;
      if (req.secret_references != null) d.secretReferences = req.secret_references;
      if (wantsRevision)
        d.revisions.push(newRevision(revisionSource, revisionConfig, sourceConfig, now, rules));
      if (changed) d.modifiedAt = now;
      return ok(deploymentView(d, config, now));
    },
  },
  {
    method: 'DELETE',
    path: '/v2/deployments/{deployment_id}',
    handle(ctx) {
      const { state, config, now } = ctx;
      const d = findDeployment(ctx);
      if (d.deletedAt === null) {
        stopInFlight(d, config, now, stoppedStatus);
        d.deletedAt = now;
        d.modifiedAt = now;
        purgeDeleted(state, now, config);
      }
      return noContent();
    },
  },
  {
    method: 'GET',
    path: '/v2/deployments/{deployment_id}/revisions',
    handle(ctx) {
      const q = parseRevisionQuery(ctx.query);
      const d = findDeployment(ctx);
      const reconciled = isRemoteReconciled({ source_config: d.sourceConfig });
      const items = revisionViews(d, ctx.config, ctx.now).filter((r) => matchesRevision(r, q, reconciled));
      return ok(paginate(items, q));
    },
  },
];
