// Every controller the operator runs, one line each.
import { deploymentController } from './deployment/controller.ts';
import type { ControllerFactory } from './types.ts';

export const controllerFactories: ControllerFactory[] = [deploymentController];
