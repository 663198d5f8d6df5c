// The OAuthToken controller: OAuthToken resources → the reconciler.
import type { OAuthTokenResource } from '../../api/oauth-token.ts';
import { OAUTH_TOKENS } from '../resources.ts';
import { singleKindController } from '../single-kind.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import { OAuthTokenReconciler } from './reconciler.ts';

export function oauthTokenController(context: ControllerContext): OperatorController {
  const { kube, service, resyncMs, logger } = context;
  return singleKindController<OAuthTokenResource>(
    context,
    { name: 'oauthtoken', resource: OAUTH_TOKENS },
    (tokens) => {
      const reconciler = new OAuthTokenReconciler({ kube, service, tokens, resyncMs, logger });
      return (key) => reconciler.reconcile(key);
    },
  );
}
