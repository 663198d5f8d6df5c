// What every controller of the operator is given, and what it gives back to the operator command.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Controller } from '../runtime/controller.ts';
import type { Informer } from '../runtime/informer.ts';
import type { KubeClient, KubeObject } from '../runtime/kube.ts';
import type { ServiceClient } from '../service/client.ts';

export interface ControllerContext {
  kube: KubeClient;
  service: ServiceClient;
  /** Namespaces to watch; undefined: all. Cluster-scoped kinds ignore it. */
  namespaces?: string[];
  resyncMs: number;
  concurrency: number;
  registry: Registry;
  logger: Logger;
}

export interface OperatorController {
  controller: Controller;
  informers: Informer<KubeObject>[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

export type ControllerFactory = (context: ControllerContext) => OperatorController;
