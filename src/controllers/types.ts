// What every controller of the operator is given, and what it gives back to the operator command.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Controller } from '../runtime/controller.ts';
import type { KubeClient } from '../runtime/kube.ts';
import type { SharedInformers } from '../runtime/shared-informers.ts';
import type { Workspaces } from './workspace/registry.ts';
import type { Defaults } from './workspace/verdict.ts';

export interface ControllerContext {
  kube: KubeClient;
  /** How each resource reaches the service: its workspace's connection, or why it may not act now. */
  workspaces: Workspaces;
  /** What a Workspace or ClusterWorkspace falls back to: the operator's flags. */
  workspaceDefaults: Defaults;
  /** One informer per kind, shared by the controllers (namespaces and resync are set on it). */
  informers: SharedInformers;
  resyncMs: number;
  concurrency: number;
  registry: Registry;
  logger: Logger;
}

export interface OperatorController {
  controller: Controller;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export type ControllerFactory = (context: ControllerContext) => OperatorController;
