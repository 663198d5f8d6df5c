// The OAuthToken controller: OAuthToken resources → the shared reconciler.
import type { OAuthTokenResource } from '../../api/oauth-token.ts';
import { managedController } from '../managed/controller.ts';
import { OAUTH_TOKENS } from '../resources.ts';
import type { ControllerContext, OperatorController } from '../types.ts';
import { oauthTokenKind } from './kind.ts';

export function oauthTokenController(context: ControllerContext): OperatorController {
  return managedController(context, {
    name: 'oauthtoken',
    informer: context.informers.resource<OAuthTokenResource>(OAUTH_TOKENS),
    kind: oauthTokenKind(context.resyncMs),
  });
}
