// Wires the OAuthToken controller: an informer for OAuthToken resources and the reconciler behind a
// work queue.
import type { OAuthTokenResource } from '../../api/oauth-token.ts';
import { Controller, watchPrimary } from '../../runtime/controller.ts';
import { Informer, resourceListerWatcher } from '../../runtime/informer.ts';
import type { KubeObject } from '../../runtime/kube.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import { OAUTH_TOKENS, OAuthTokenReconciler } from './reconciler.ts';

export function oauthTokenController(options: ControllerContext): OperatorController {
  const { kube, service, namespaces, resyncMs, logger } = options;
  const tokens = new Informer<OAuthTokenResource>(resourceListerWatcher(kube, OAUTH_TOKENS), {
    namespaces,
    resyncMs,
    logger,
    name: 'oauthtokens',
  });
  const reconciler = new OAuthTokenReconciler({ kube, service, tokens, resyncMs, logger });
  const controller = new Controller({
    name: 'oauthtoken',
    watches: [watchPrimary(tokens)],
    reconcile: (key) => reconciler.reconcile(key),
    concurrency: options.concurrency,
    registry: options.registry,
    logger,
  });
  return {
    controller,
    informers: [tokens] as unknown as Informer<KubeObject>[],
    start: () => controller.start(),
    stop: () => controller.stop(),
  };
}
