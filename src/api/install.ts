// The install manifests that depend on the kind list: the operator's ClusterRole and the editor/viewer
// ClusterRoles of every kind, for deploy/ and for the Helm chart, plus the chart's copy of the CRDs.
// `agent-deploy crds --write` writes them with crds/, so a new kind in kinds.ts reaches both installs.
import { Document, isScalar, isSeq, type Node, visit } from 'yaml';
import { group } from './constants.ts';
import { crdFiles } from './crd.ts';
import type { KindDefinition } from './fields.ts';
import { kinds } from './kinds.ts';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}

/** A rule and the comment that says why the operator needs it. */
type ExplainedRule = [comment: string, rule: PolicyRule];

const name = 'agent-deploy-operator';
const system = 'agent-deploy-system';
export const chartDir = `charts/${name}`;
const header = 'Generated from src/api by `agent-deploy crds --write`. Do not edit.';

/** What the operator reads and writes across the cluster. No wildcards. */
export function operatorRules(all: readonly KindDefinition[] = kinds): ExplainedRule[] {
  const plurals = all.map((k) => k.plural);
  const sub = (suffix: string) => plurals.map((p) => `${p}/${suffix}`);
  return [
    [
      'Informers (get, list, watch); annotations (crash-safe create marker, deployment id) and finalizers\n' +
        'are written with merge patches conditional on resourceVersion.',
      { apiGroups: [group], resources: plurals, verbs: ['get', 'list', 'watch', 'patch', 'update'] },
    ],
    [
      'Status is written only through the status subresource.',
      { apiGroups: [group], resources: sub('status'), verbs: ['get', 'patch', 'update'] },
    ],
    [
      'Only needed where the OwnerReferencesPermissionEnforcement admission plugin is on (e.g. OpenShift).',
      { apiGroups: [group], resources: sub('finalizers'), verbs: ['update'] },
    ],
    [
      'Values of spec.secrets[].valueFrom.secretKeyRef and spec.secretsFrom, and the API keys of\n' +
        'Workspaces; read, never written. list and watch ask for metadata only (to learn of changes); get\n' +
        'reads just the Secrets a resource references.',
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
    ],
    [
      'Transitions (Created, Updated, RevisionDeployed, RevisionFailed, …) shown by kubectl describe.',
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ],
  ];
}

export interface AggregatedRole {
  /** Appended to the release's name: `<name>-<suffix>`. */
  suffix: string;
  /** The built-in roles (admin, edit, view) this one aggregates into. */
  aggregateTo: string[];
  rules: PolicyRule[];
}

/**
 * Per kind, an editor role aggregated into the built-in `admin` and `edit` roles and a viewer role
 * aggregated into `view` (and so, through the built-ins' own aggregation, into `edit` and `admin`):
 * whoever may edit a namespace may edit these resources there, without RBAC written by hand.
 * Status belongs to the operator, so editors only read it.
 */
export function aggregatedRoles(all: readonly KindDefinition[] = kinds): AggregatedRole[] {
  const read = ['get', 'list', 'watch'];
  const write = ['create', 'delete', 'deletecollection', 'patch', 'update'];
  return all.flatMap((k) => {
    const status = { apiGroups: [group], resources: [`${k.plural}/status`], verbs: ['get'] };
    const kindName = k.kind.toLowerCase();
    return [
      {
        suffix: `${kindName}-editor`,
        aggregateTo: ['admin', 'edit'],
        rules: [{ apiGroups: [group], resources: [k.plural], verbs: [...read, ...write] }, status],
      },
      {
        suffix: `${kindName}-viewer`,
        aggregateTo: ['view'],
        rules: [{ apiGroups: [group], resources: [k.plural], verbs: read }, status],
      },
    ];
  });
}

export function aggregationLabels(role: AggregatedRole): Record<string, string> {
  return Object.fromEntries(
    role.aggregateTo.map((to) => [`rbac.authorization.k8s.io/aggregate-to-${to}`, 'true']),
  );
}

/** YAML of `value` as RBAC is usually written: lists of names on one line (`verbs: [get, list]`). */
function document(value: unknown): Document {
  const doc = new Document(value, { aliasDuplicateObjects: false });
  visit(doc, {
    Seq(_, node) {
      if (node.items.every(isScalar)) node.flow = true;
    },
  });
  return doc;
}

const render = (doc: Document) => doc.toString({ lineWidth: 0, flowCollectionPadding: false });
const toYaml = (value: unknown) => render(document(value));

/** YAML of `value` with each rule's comment above it (`rulesAt` is where the rule list is). */
function yamlWithComments(value: unknown, rulesAt: (string | number)[], rules: ExplainedRule[]): string {
  const doc = document(value);
  const list = rulesAt.length ? doc.getIn(rulesAt, true) : doc.contents;
  if (!isSeq(list)) throw new Error('rules are not a list');
  rules.forEach(([comment], i) => {
    (list.items[i] as Node).commentBefore = comment
      .split('\n')
      .map((l) => ` ${l}`)
      .join('\n');
  });
  return render(doc);
}

/** deploy/cluster-role.yaml: the operator's ClusterRole and its binding to the ServiceAccount. */
export function deployClusterRole(): string {
  const labels = { 'app.kubernetes.io/name': name };
  const rules = operatorRules();
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name, labels },
    rules: rules.map(([, rule]) => rule),
  };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name, labels },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name, namespace: system }],
  };
  return [
    `# ${header}\n# What the operator reads and writes across the cluster. All kinds are watched cluster-wide (or in\n# the namespaces given with --namespace).\n`,
    yamlWithComments(role, ['rules'], rules),
    '---\n',
    toYaml(binding),
  ].join('');
}

/** deploy/aggregated-cluster-roles.yaml: the editor and viewer ClusterRoles of every kind. */
export function deployAggregatedRoles(): string {
  const docs = aggregatedRoles().map((role) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name: `${name}-${role.suffix}`,
      labels: { 'app.kubernetes.io/name': name, ...aggregationLabels(role) },
    },
    rules: role.rules,
  }));
  return `# ${header}\n# ${aggregatedRolesComment}\n${docs.map(toYaml).join('---\n')}`;
}

const aggregatedRolesComment =
  'Per kind, an editor role (aggregated into the built-in admin and edit roles) and a viewer role\n' +
  '# (aggregated into view): users who may edit or view a namespace get the same on these kinds.';

/**
 * charts/…/templates/_api.tpl: the same rules as named templates. The chart's templates include them,
 * so the chart holds no list of kinds of its own.
 */
export function chartApiTemplate(): string {
  const rules = operatorRules();
  const roles = aggregatedRoles().map((role) => ({
    suffix: role.suffix,
    labels: aggregationLabels(role),
    rules: role.rules,
  }));
  return [
    `{{/* ${header} */}}`,
    '',
    "{{/* The operator's ClusterRole rules. */}}",
    `{{- define "${name}.operatorRules" -}}`,
    yamlWithComments(
      rules.map(([, rule]) => rule),
      [],
      rules,
    ).trimEnd(),
    '{{- end }}',
    '',
    `{{/* ${aggregatedRolesComment.replace('\n# ', ' ')} */}}`,
    `{{- define "${name}.aggregatedRoles" -}}`,
    toYaml(roles).trimEnd(),
    '{{- end }}',
    '',
  ].join('\n');
}

/** The chart's crds/: the CRDs of crds/, one file per kind (Helm reads every file there; no kustomization). */
export function chartCrdFiles(): Map<string, string> {
  return new Map([...crdFiles()].filter(([file]) => file !== 'kustomization.yaml'));
}

export interface GeneratedDir {
  /** Relative to the repository root. */
  dir: string;
  files: Map<string, string>;
  /** Every YAML file in the directory is generated: one not written any more is stale. */
  owned: boolean;
}

/** Everything `agent-deploy crds --write` writes, besides crds/ itself. */
export function installFiles(): GeneratedDir[] {
  return [
    { dir: `${chartDir}/crds`, files: chartCrdFiles(), owned: true },
    { dir: `${chartDir}/templates`, files: new Map([['_api.tpl', chartApiTemplate()]]), owned: false },
    {
      dir: 'deploy',
      files: new Map([
        ['cluster-role.yaml', deployClusterRole()],
        ['aggregated-cluster-roles.yaml', deployAggregatedRoles()],
      ]),
      owned: false,
    },
  ];
}
