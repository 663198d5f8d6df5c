// Every controller the operator runs, one line each.
import { agentConnectionController } from './agent-connection/controller.ts';
import { deploymentController } from './deployment/controller.ts';
import { listenerController } from './listener/controller.ts';
import { oauthTokenController } from './oauth-token/controller.ts';
import type { ControllerFactory } from './types.ts';
import { workspaceController } from './workspace/controller.ts';

export const controllerFactories: ControllerFactory[] = [
  deploymentController,
  listenerController,
  agentConnectionController,
  oauthTokenController,
  workspaceController,
];
