#!/usr/bin/env bash
# Builds a real helm (helm.sh/helm/v3, cmd/helm) from the Go module proxy, cached by version,
# for the chart tests under test/charts/.
#
# One tiny Go module requires helm.sh/helm/v3 at the release; its go.mod pins the dependencies
# (helm's own go.mod has no replace lines, so they resolve as helm's release build resolves them).
# The ldflags are the ones helm's Makefile sets: the version, and the Kubernetes version that
# `helm template` and `helm lint` assume, taken from the client-go the release requires.
#
# Output: $AGENT_DEPLOY_HELM_DIR (default ~/.cache/agent-deploy/helm/<version>)/bin/helm.
# The version is in ./helm-version.
set -euo pipefail

HELM_VERSION=${HELM_VERSION:-$(cat "$(dirname "$0")/helm-version")}
dir=${AGENT_DEPLOY_HELM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-deploy/helm/$HELM_VERSION}
bin=$dir/bin

if [ -x "$bin/helm" ]; then
  echo "helm $HELM_VERSION: cached in $bin"
  exit 0
fi
command -v go >/dev/null || { echo "go is required to build helm (install Go: https://go.dev/dl or apt-get install golang)" >&2; exit 1; }

src=$dir/src
rm -rf "$src" && mkdir -p "$src" "$bin"
cd "$src"
printf 'module agent-deploy.local/helm\n\ngo 1.24\n\nrequire helm.sh/helm/v3 %s\n' "$HELM_VERSION" > go.mod
# A blank import keeps helm.sh/helm/v3 a direct requirement without a main package of our own.
printf 'package helm\n\nimport _ "helm.sh/helm/v3/pkg/action"\n' > deps.go

export GOFLAGS="${GOFLAGS:-} -mod=mod"
echo "helm $HELM_VERSION: resolving modules (first run only)"
client_go=$(go list -m -f '{{.Version}}' k8s.io/client-go) # v0.N.x serves Kubernetes 1.N
k8s_minor=$(echo "$client_go" | cut -d. -f2)
ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.metadata="
for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
  ldflags="$ldflags -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$k8s_minor"
done
echo "helm $HELM_VERSION: building cmd/helm (a few minutes on 2 cores; cached afterwards)"
go build -trimpath -ldflags "$ldflags" -o "$bin/helm.tmp" helm.sh/helm/v3/cmd/helm
mv "$bin/helm.tmp" "$bin/helm"
echo "helm $HELM_VERSION: built into $bin"
