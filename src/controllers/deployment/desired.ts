// What the service should hold for a Deployment resource: the CR's camelCase spec mapped 1:1 to the
// wire's snake_case (DESIGN.md §2), with the inputs the operator resolved (Secrets, listener, repository).
import type { DeploymentResource, DeploymentSpec } from '../../api/deployment.ts';
import type {
  CreateDeploymentRequest,
  SourceConfigInput,
  SourceRevisionConfigInput,
} from '../../service/wire.ts';

export interface ResolvedInputs {
  /** Every secret of the deployment with its value, sorted by name. */
  secrets: { name: string; value: string }[];
  /** From spec.listenerRef: the Listener's status.listenerId. */
  listenerId?: string;
  /** From spec.repository: what the code-host endpoints answered. */
  repository?: { integrationId: string; repoUrl: string; branch: string };
}

export interface DesiredDeployment {
  create: CreateDeploymentRequest;
  revisionSource?: NonNullable<DeploymentSpec['revisionSource']>;
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Renames the keys of one object level; nested values (Volumes, Containers, maps) pass through. */
function snakeKeys(obj: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(obj)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [snake(k), v]),
  );
}

export function deploymentName(cr: DeploymentResource): string {
  return cr.spec.name ?? cr.metadata.name!;
}

export function desiredDeployment(cr: DeploymentResource, inputs: ResolvedInputs): DesiredDeployment {
  const { spec } = cr;
  const { resourceSpec, listenerConfig, ...scalars } = spec.sourceConfig ?? {};
  const sourceConfig: Record<string, unknown> = snakeKeys(scalars);
  if (resourceSpec) sourceConfig.resource_spec = snakeKeys(resourceSpec);
  if (listenerConfig) sourceConfig.listener_config = snakeKeys(listenerConfig);
  if (inputs.listenerId) sourceConfig.listener_id = inputs.listenerId;
  const revisionConfig: Record<string, unknown> = snakeKeys(spec.sourceRevisionConfig ?? {});
  if (inputs.repository) {
    sourceConfig.integration_id = inputs.repository.integrationId;
    sourceConfig.repo_url = inputs.repository.repoUrl;
    revisionConfig.repo_ref = inputs.repository.branch;
  }
  const create: CreateDeploymentRequest = {
    name: deploymentName(cr),
    source: spec.source,
    source_config: sourceConfig as SourceConfigInput,
    source_revision_config: revisionConfig as SourceRevisionConfigInput,
    secrets: inputs.secrets,
  };
  if (spec.secretReferences) {
    create.secret_references = spec.secretReferences.map((r) => ({
      name: r.name,
      secret_name: r.secretName,
      secret_key: r.secretKey,
    }));
  }
  return spec.revisionSource ? { create, revisionSource: spec.revisionSource } : { create };
}
