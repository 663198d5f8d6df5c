#!/usr/bin/env bash
# Builds a real kube-apiserver and etcd from the Go module proxy, cached by version.
#
# One tiny Go module requires k8s.io/kubernetes at a release; its staging modules
# (k8s.io/api, k8s.io/apiserver, ...) are pinned with `replace` lines generated from
# that release's own go.mod, as the release itself resolves them to ./staging.
# etcd comes from the same module graph (k8s.io/kubernetes requires etcd/server/v3),
# so both binaries agree on grpc and friends.
#
# Output: $AGENT_DEPLOY_CONTROLPLANE_DIR (default ~/.cache/agent-deploy/controlplane/<version>)/bin/{kube-apiserver,etcd}
# (and kubectl, with AGENT_DEPLOY_BUILD_KUBECTL=1, for machines that have none). The version is in ./kubernetes-version.
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-$(cat "$(dirname "$0")/kubernetes-version")}
cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/agent-deploy/controlplane
dir=${AGENT_DEPLOY_CONTROLPLANE_DIR:-$cache_root/$K8S_VERSION}
bin=$dir/bin

want_kubectl=${AGENT_DEPLOY_BUILD_KUBECTL:-0}
if [ -x "$bin/kube-apiserver" ] && [ -x "$bin/etcd" ] && { [ "$want_kubectl" = 0 ] || [ -x "$bin/kubectl" ]; }; then
  echo "control plane $K8S_VERSION: cached in $bin"
  exit 0
fi
command -v go >/dev/null || { echo "go is required to build kube-apiserver and etcd (install Go >= 1.23: https://go.dev/dl or apt-get install golang)" >&2; exit 1; }

src=$dir/src
rm -rf "$src" && mkdir -p "$src/kube-apiserver" "$src/etcd" "$src/kubectl" "$bin"
cd "$src"

echo "control plane $K8S_VERSION: resolving modules (first run only)"
release_gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
[ -f "$release_gomod" ] || { echo "could not download k8s.io/kubernetes@$K8S_VERSION from the Go module proxy" >&2; exit 1; }
staging_version="v0.${K8S_VERSION#v1.}"

{
  echo "module agent-deploy.local/controlplane"
  echo
  echo "go 1.23.0"
  echo
  echo "require k8s.io/kubernetes $K8S_VERSION"
  echo
  # "k8s.io/api => ./staging/src/k8s.io/api" in the release becomes "k8s.io/api => k8s.io/api v0.32.x" here.
  sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9./-]*\) => \./staging/src/.*#replace \1 => \1 '"$staging_version"'#p' "$release_gomod"
} > go.mod

cat > kube-apiserver/main.go <<'GO'
// kube-apiserver, exactly as cmd/kube-apiserver of the required release builds it.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
GO

cat > kubectl/main.go <<'GO'
// kubectl of the same release, for machines that have none.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
	os.Exit(0)
}
GO

cat > etcd/main.go <<'GO'
// etcd server at the version the required Kubernetes release depends on.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
GO

# Not `go mod tidy`: it also resolves the test imports of every dependency, some of whose
# module zips the proxy does not serve. The build resolves exactly what the binaries import.
export GOFLAGS="${GOFLAGS:-} -mod=mod"
echo "control plane $K8S_VERSION: building kube-apiserver and etcd (about 5 minutes on 2 cores; cached afterwards)"
minor=$(echo "$K8S_VERSION" | cut -d. -f2)
ldflags="-s -w"
# kube-apiserver reads its version from component-base, kubectl from client-go.
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags="$ldflags -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
done
go build -trimpath -ldflags "$ldflags" -o "$bin/etcd.tmp" ./etcd
go build -trimpath -ldflags "$ldflags" -o "$bin/kube-apiserver.tmp" ./kube-apiserver
if [ "$want_kubectl" != 0 ]; then
  go build -trimpath -ldflags "$ldflags" -o "$bin/kubectl.tmp" ./kubectl && mv "$bin/kubectl.tmp" "$bin/kubectl"
fi
mv "$bin/etcd.tmp" "$bin/etcd" && mv "$bin/kube-apiserver.tmp" "$bin/kube-apiserver"
echo "control plane $K8S_VERSION: built into $bin"
