// Reconciles one OAuthToken resource (DESIGN.md §2): PATCH the token's metadata when the spec differs
// from what status last saw (see token.ts for why status is the only observation), mirror the answer.
import type { Logger } from 'pino';
import type { OAuthTokenResource, OAuthTokenStatus } from '../../api/oauth-token.ts';
import type { Informer } from '../../runtime/informer.ts';
import type { KubeClient } from '../../runtime/kube.ts';
import type { ServiceClient } from '../../service/client.ts';
import { ServiceError } from '../../service/errors.ts';
import type { UpdateTokenMetadataRequest } from '../../service/wire.ts';
import { outcomeConditions, refusal, serviceTrouble } from '../conditions.ts';
import type { Problem } from '../deployment/conditions.ts';
import { OutcomeMemo } from '../memo.ts';
import { ResourceIO } from '../resource-io.ts';
import { OAUTH_TOKENS } from '../resources.ts';
import { nextStatus, previousObserved, transitionEvents } from '../status.ts';
import { type ObservedToken, readyMessage, tokenPatch, tokenStatus, warnedOfProvider } from './token.ts';

export interface OAuthTokenReconcilerDeps {
  kube: KubeClient;
  service: ServiceClient;
  tokens: Informer<OAuthTokenResource>;
  resyncMs: number;
  logger: Logger;
}

interface Outcome {
  observed: ObservedToken;
  problem?: Problem;
  providerKnown: boolean;
}

export class OAuthTokenReconciler {
  readonly #d: OAuthTokenReconcilerDeps;
  readonly #io: ResourceIO<OAuthTokenResource>;
  /** The last PATCH's outcome per generation: our own status write, or a refusal, does not PATCH again. */
  readonly #memo: OutcomeMemo<Outcome>;

  constructor(deps: OAuthTokenReconcilerDeps) {
    this.#d = deps;
    this.#io = new ResourceIO(deps.kube, OAUTH_TOKENS, deps.logger);
    this.#memo = new OutcomeMemo(deps.resyncMs / 2);
  }

  async reconcile(key: string): Promise<void> {
    const cached = this.#d.tokens.get(key);
    if (!cached) {
      this.#memo.delete(key);
      return;
    }
    const cr = structuredClone(cached);
    const generation = cr.metadata.generation ?? 0;
    let outcome = this.#memo.get(key, generation);
    if (!outcome) {
      const body = tokenPatch(cr.spec, cr.status);
      if (body) {
        outcome = await this.#patch(cr, body).catch(async (err: unknown) => {
          if (err instanceof ServiceError)
            await this.#write(cr, {
              observed: previousObserved(cr.status),
              problem: serviceTrouble(err),
              providerKnown: true,
            });
          throw err;
        });
        this.#memo.set(key, generation, outcome);
      } else {
        outcome = { observed: previousObserved(cr.status), providerKnown: !warnedOfProvider(cr.status) };
      }
    }
    await this.#write(cr, outcome);
  }

  async #patch(cr: OAuthTokenResource, body: UpdateTokenMetadataRequest): Promise<Outcome> {
    const log = this.#d.logger.child({ oauthToken: `${cr.metadata.namespace}/${cr.metadata.name}` });
    try {
      const token = await this.#d.service.updateTokenMetadata(cr.spec.tokenId, body);
      const fields = Object.keys(body);
      if (fields.length > 0) {
        log.info({ tokenId: token.id, fields }, 'updated token metadata');
        this.#io.event(cr, {
          type: 'Normal',
          reason: 'Updated',
          message: `set ${fields.join(', ')} of token ${token.id}`,
        });
      }
      return { observed: tokenStatus(token), providerKnown: await this.#providerKnown(token.provider_id) };
    } catch (err) {
      const problem = refusal(
        err,
        `only the owner of token ${cr.spec.tokenId} can change its metadata, and the operator's API key does not belong to them`,
      );
      return { observed: previousObserved(cr.status), problem, providerKnown: true };
    }
  }

  /** DESIGN.md §2: a token's provider is checked when the token is shown; one list call per PATCH. */
  async #providerKnown(providerId: string): Promise<boolean> {
    const providers = await this.#d.service.listProviders();
    return providers.some((p) => p.provider_id === providerId);
  }

  async #write(cr: OAuthTokenResource, outcome: Outcome): Promise<void> {
    const next = nextStatus<OAuthTokenStatus>(
      cr.status,
      outcome.observed,
      outcomeConditions(
        outcome.problem,
        readyMessage(cr.spec.tokenId, outcome.observed, outcome.providerKnown),
      ),
      cr.metadata.generation ?? 0,
      new Date().toISOString(),
    );
    if (await this.#io.writeStatus(cr, next))
      for (const event of transitionEvents(cr.status?.conditions, next.conditions!))
        this.#io.event(cr, event);
  }
}
