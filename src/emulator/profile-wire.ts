// The shapes each emulator profile accepts and answers where they differ from src/service/wire.ts (the
// operator's schemas): the interface profile keeps to the interface's lists, the hosted profile adds the
// values the hosted service uses (known from its official Terraform provider).
import { z } from 'zod';
import {
  CreateDeploymentRequest,
  Deployment,
  deploymentStatuses,
  deploymentTypes,
  interfaceDeploymentTypes,
  PatchDeploymentRequest,
  SourceConfig,
  SourceConfigInput,
} from '../service/wire.ts';

/** The scale-to-zero tiers too (wire.ts's deploymentTypes, what the operator may send). */
export const hostedDeploymentTypes = deploymentTypes;

/** The second phase of the hosted service's asynchronous delete, after AWAITING_DELETE. */
export const finalDeleteStatus = 'AWAITING_FINAL_DELETE';

/** Where a self-hosted installation serves the API. */
export const selfHostedApiPrefix = '/api-host';

// The operator's request schemas (wire.ts) take the hosted tiers, since it may send them; the interface
// profile keeps to the interface's list.
const InterfaceSourceConfigInput = SourceConfigInput.extend({
  deployment_type: z.enum(interfaceDeploymentTypes).nullish(),
});
export const InterfaceCreateDeploymentRequest = CreateDeploymentRequest.extend({
  source_config: InterfaceSourceConfigInput,
});
export const InterfacePatchDeploymentRequest = PatchDeploymentRequest.extend({
  source_config: InterfaceSourceConfigInput.nullish(),
});
export const HostedCreateDeploymentRequest = CreateDeploymentRequest;
export const HostedPatchDeploymentRequest = PatchDeploymentRequest;

/** A deployment as the hosted service answers it. */
export const HostedDeployment = Deployment.extend({
  status: z.enum([...deploymentStatuses, finalDeleteStatus]),
  source_config: SourceConfig.extend({ deployment_type: z.enum(hostedDeploymentTypes).nullish() }),
});

/** What either profile stores and answers: the interface's shapes widened by the hosted values above. */
export type EmulatedSourceConfig = z.infer<typeof SourceConfigInput>;
export type EmulatedCreateRequest = z.infer<typeof HostedCreateDeploymentRequest>;
export type EmulatedPatchRequest = z.infer<typeof HostedPatchDeploymentRequest>;
export type EmulatedDeployment = z.infer<typeof HostedDeployment>;
export type EmulatedDeploymentStatus = EmulatedDeployment['status'];
