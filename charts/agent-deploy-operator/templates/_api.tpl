{{/* Generated from src/api by `agent-deploy crds --write`. Do not edit. */}}

{{/* The operator's ClusterRole rules. */}}
{{- define "agent-deploy-operator.operatorRules" -}}
# Informers (get, list, watch); annotations (crash-safe create marker, deployment id) and finalizers
# are written with merge patches conditional on resourceVersion.
- apiGroups: [deploy.agents.dev]
  resources: [deployments, listeners, agentconnections, oauthtokens, workspaces, clusterworkspaces]
  verbs: [get, list, watch, patch, update]
# Status is written only through the status subresource.
- apiGroups: [deploy.agents.dev]
  resources: [deployments/status, listeners/status, agentconnections/status, oauthtokens/status, workspaces/status, clusterworkspaces/status]
  verbs: [get, patch, update]
# Only needed where the OwnerReferencesPermissionEnforcement admission plugin is on (e.g. OpenShift).
- apiGroups: [deploy.agents.dev]
  resources: [deployments/finalizers, listeners/finalizers, agentconnections/finalizers, oauthtokens/finalizers, workspaces/finalizers, clusterworkspaces/finalizers]
  verbs: [update]
# Values of spec.secrets[].valueFrom.secretKeyRef and spec.secretsFrom, and the API keys of
# Workspaces; read, never written. list and watch ask for metadata only (to learn of changes); get
# reads just the Secrets a resource references.
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list, watch]
# Transitions (Created, Updated, RevisionDeployed, RevisionFailed, …) shown by kubectl describe.
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
{{- end }}

{{/* Per kind, an editor role (aggregated into the built-in admin and edit roles) and a viewer role (aggregated into view): users who may edit or view a namespace get the same on these kinds. */}}
{{- define "agent-deploy-operator.aggregatedRoles" -}}
- suffix: deployment-editor
  labels:
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
  rules:
    - apiGroups: [deploy.agents.dev]
      resources: [deployments]
      verbs: [get, list, watch, create, delete, deletecollection, patch, update]
    - apiGroups: [deploy.agents.dev]
      resources: [deployments/status]
      verbs: [get]
- suffix: deployment-viewer
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: "true"
  rules:
    - apiGroups: [deploy.agents.dev]
      resources: [deployments]
      verbs: [get, list, watch]
    - apiGroups: [deploy.agents.dev]
      resources: [deployments/status]
      verbs: [get]
- suffix: listener-editor
  labels:
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
  rules:
    - apiGroups: [deploy.agents.dev]
      resources: [listeners]
      verbs: [get, list, watch, create, delete, deletecollection, patch, update]
    - apiGroups: [deploy.agents.dev]
      resources: [listeners/status]
      verbs: [get]
- suffix: listener-viewer
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: "true"
  rules:
    - apiGroups: [deploy.agents.dev]
      resources: [listeners]
      verbs: [get, list, watch]
    - apiGroups: [deploy.agents.dev]
      resources: [listeners/status]
      verbs: [get]
- suffix: agentconnection-editor
  labels:
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
  rules:
    - apiGroups: [deploy.agents.dev]
      resources: [agentconnections]
      verbs: [get, list, watch, create, delete, deletecollection, patch, update]
    - apiGroups: [deploy.agents.dev]
      resources: [agentconnections/status]
      verbs: [get]
- suffix: agentconnection-viewer
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: "true"
  rules:
    - apiGroups: [deploy.agents.dev]
      resources: [agentconnections]
      verbs: [get, list, watch]
    - apiGroups: [deploy.agents.dev]
      resources: [agentconnections/status]
      verbs: [get]
- suffix: oauthtoken-editor
  labels:
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
  rules:
    - apiGroups: [deploy.agents.dev]
      resources: [oauthtokens]
      verbs: [get, list, watch, create, delete, deletecollection, patch, update]
    - apiGroups: [deploy.agents.dev]
      resources: [oauthtokens/status]
      verbs: [get]
- suffix: oauthtoken-viewer
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: "true"
  rules:
    - apiGroups: [deploy.agents.dev]
      resources: [oauthtokens]
      verbs: [get, list, watch]
    - apiGroups: [deploy.agents.dev]
      resources: [oauthtokens/status]
      verbs: [get]
- suffix: workspace-editor
  labels:
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
  rules:
    - apiGroups: [deploy.agents.dev]
      resources: [workspaces]
      verbs: [get, list, watch, create, delete, deletecollection, patch, update]
    - apiGroups: [deploy.agents.dev]
      resources: [workspaces/status]
      verbs: [get]
- suffix: workspace-viewer
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: "true"
  rules:
    - apiGroups: [deploy.agents.dev]
      resources: [workspaces]
      verbs: [get, list, watch]
    - apiGroups: [deploy.agents.dev]
      resources: [workspaces/status]
      verbs: [get]
- suffix: clusterworkspace-editor
  labels:
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
  rules:
    - apiGroups: [deploy.agents.dev]
      resources: [clusterworkspaces]
      verbs: [get, list, watch, create, delete, deletecollection, patch, update]
    - apiGroups: [deploy.agents.dev]
      resources: [clusterworkspaces/status]
      verbs: [get]
- suffix: clusterworkspace-viewer
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: "true"
  rules:
    - apiGroups: [deploy.agents.dev]
      resources: [clusterworkspaces]
      verbs: [get, list, watch]
    - apiGroups: [deploy.agents.dev]
      resources: [clusterworkspaces/status]
      verbs: [get]
{{- end }}
