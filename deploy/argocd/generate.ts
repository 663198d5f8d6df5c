// Writes argocd-cm.yaml from health.lua, registered for each kind: the ConfigMap snippet that registers the health checks
// (test/argocd/health.test.ts fails when the two disagree). Run: node deploy/argocd/generate.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { group, kindNames } from '../../src/api/constants.ts';

const here = new URL('./', import.meta.url);

/** One script serves every kind: they all carry the same four conditions. */
export const healthScript = () => readFileSync(new URL('health.lua', here), 'utf8');

/** The argocd-cm text for the current health.lua. */
export function argocdConfigMap(): string {
  const data = Object.fromEntries(
    Object.values(kindNames).map(({ kind }) => [
      `resource.customizations.health.${group}_${kind}`,
      healthScript(),
    ]),
  );
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'argocd-cm',
      namespace: 'argocd',
      labels: { 'app.kubernetes.io/name': 'argocd-cm', 'app.kubernetes.io/part-of': 'argocd' },
    },
    data,
  };
  return [
    '# Generated from deploy/argocd/health.lua by `node deploy/argocd/generate.ts`; do not edit.',
    '# Argo CD health checks of the deploy.agents.dev kinds: merge these keys into the argocd-cm ConfigMap',
    '# of your Argo CD installation (or its Helm values under configs.cm).',
    stringify(configMap, { lineWidth: 0 }),
  ].join('\n');
}

if (import.meta.main) writeFileSync(new URL('argocd-cm.yaml', here), argocdConfigMap());
