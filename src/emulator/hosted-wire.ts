// Values the hosted service uses that the interface (src/service/wire.ts) does not list. Only the hosted
// profile accepts or answers them; the knowledge comes from the service's official Terraform provider.
import { z } from 'zod';
import {
  CreateDeploymentRequest,
  Deployment,
  deploymentStatuses,
  deploymentTypes,
  PatchDeploymentRequest,
  SourceConfig,
  SourceConfigInput,
} from '../service/wire.ts';

/** Scale-to-zero tiers, next to the interface's dev_free, dev and prod. */
export const hostedDeploymentTypes = [...deploymentTypes, 'dev_zero', 'dev_free_zero'] as const;

/** The second phase of the hosted service's asynchronous delete, after AWAITING_DELETE. */
export const finalDeleteStatus = 'AWAITING_FINAL_DELETE';

/** Where a self-hosted installation serves the API. */
export const selfHostedApiPrefix = '/api-host';

const HostedDeploymentType = z.enum(hostedDeploymentTypes);
const HostedSourceConfigInput = SourceConfigInput.extend({ deployment_type: HostedDeploymentType.nullish() });
export const HostedCreateDeploymentRequest = CreateDeploymentRequest.extend({
  source_config: HostedSourceConfigInput,
});
export const HostedPatchDeploymentRequest = PatchDeploymentRequest.extend({
  source_config: HostedSourceConfigInput.nullish(),
});

/** A deployment as the hosted service answers it. */
export const HostedDeployment = Deployment.extend({
  status: z.enum([...deploymentStatuses, finalDeleteStatus]),
  source_config: SourceConfig.extend({ deployment_type: HostedDeploymentType.nullish() }),
});

/** What either profile stores and answers: the interface's shapes widened by the hosted values above. */
export type EmulatedSourceConfig = z.infer<typeof HostedSourceConfigInput>;
export type EmulatedCreateRequest = z.infer<typeof HostedCreateDeploymentRequest>;
export type EmulatedPatchRequest = z.infer<typeof HostedPatchDeploymentRequest>;
export type EmulatedDeployment = z.infer<typeof HostedDeployment>;
export type EmulatedDeploymentStatus = EmulatedDeployment['status'];
