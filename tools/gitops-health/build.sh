#!/usr/bin/env bash
# Builds the GitOps health checkers from the Go module proxy, cached by the hash of their sources:
#   flux-health    Flux's healthCheckExprs evaluation (github.com/fluxcd/pkg/runtime/cel)
#   argocd-health  an Argo CD Lua health check, run as the Argo CD application controller runs it (gopher-lua)
#   kstatus-check  kstatus (sigs.k8s.io/cli-utils status.Compute)
# Prints the directory holding the binaries ($XDG_CACHE_HOME or ~/.cache)/agent-deploy/gitops-health/<version>/bin
# as its last line of output; everything else goes to stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
version=$(find go.mod go.sum cmd internal -type f | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16)
dir=${XDG_CACHE_HOME:-$HOME/.cache}/agent-deploy/gitops-health/$version
tools=(flux-health argocd-health kstatus-check)

built() { for t in "${tools[@]}"; do [ -x "$dir/bin/$t" ] || return 1; done; }
if built; then
  echo "$dir/bin"
  exit 0
fi
command -v go >/dev/null || { echo "go is required to build the health checkers (install Go >= 1.26)" >&2; exit 1; }
echo "gitops-health $version: building ${tools[*]} (first run only)" >&2
mkdir -p "$(dirname "$dir")"
# Build aside, then rename: a concurrent build of the same version never sees half a directory.
tmp=$(mktemp -d "$dir.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
GOFLAGS=-mod=mod nice -n 10 go build -trimpath -ldflags='-s -w' -o "$tmp/bin/" ./cmd/... >&2
mv -T "$tmp" "$dir" 2>/dev/null || built || { echo "could not install $dir" >&2; exit 1; }
echo "$dir/bin"
