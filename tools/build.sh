#!/usr/bin/env bash
# make tools: build the real tools the tests and `make validate` use into .tools/bin, each from its
# published Go module at the version pinned by tools/<name>/go.mod and go.sum:
#   helm (Helm 3), helm4 (Helm 4), kubeconform, etcd, kube-apiserver.
# Quick when already built (a stamp per binary records the go.mod, go.sum and flags it was built from).
# Where Go is missing it says so in one line and exits 0: the test tiers that need a tool then skip.
#   usage: tools/build.sh [name ...]     (default: all five)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.tools/bin"

if ! command -v go >/dev/null 2>&1; then
  echo "make tools: no Go toolchain on PATH; helm/helm4/kubeconform/etcd/kube-apiserver not built, their test tiers skip"
  exit 0
fi
mkdir -p "$bin"
# One build at a time: a second `make tools` (say, `make test` while a first build runs) waits for it.
exec 9>"$bin/.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi

# name | module folder | package | output
tools=(
  "helm|helm3|helm.sh/helm/v3/cmd/helm|helm"
  "helm4|helm4|helm.sh/helm/v4/cmd/helm|helm4"
  "kubeconform|kubeconform|github.com/yannh/kubeconform/cmd/kubeconform|kubeconform"
  "etcd|etcd|go.etcd.io/etcd/server/v3|etcd"
  "kube-apiserver|kube-apiserver|k8s.io/kubernetes/cmd/kube-apiserver|kube-apiserver"
)

modver() { (cd "$root/tools/$1" && go list -m -f '{{.Version}}' "$2"); }

# The -X flags each project's own Makefile sets; without them Helm 3 believes it talks to
# Kubernetes 1.20 and calls itself "v3.22", and kube-apiserver answers /version with v0.0.0-master.
ldflags() {
  local v k8s maj min
  case $1 in
    helm)
      v=$(modver helm3 helm.sh/helm/v3); k8s=$(modver helm3 k8s.io/client-go)   # v0.37.0 -> 1.37
      maj=1; min=$(echo "$k8s" | cut -d. -f2)
      echo "-s -w -X helm.sh/helm/v3/internal/version.version=$v -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
           "-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=$maj -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$min" \
           "-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=$maj -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$min" ;;
    helm4)
      v=$(modver helm4 helm.sh/helm/v4)
      echo "-s -w -X helm.sh/helm/v4/internal/version.version=$v -X helm.sh/helm/v4/internal/version.gitTreeState=clean" ;;
    kubeconform)
      echo "-s -w -X main.version=$(modver kubeconform github.com/yannh/kubeconform)" ;;
    etcd)
      echo "-s -w" ;;
    kube-apiserver)
      v=$(modver kube-apiserver k8s.io/kubernetes); min=$(echo "$v" | cut -d. -f2)
      local x=""
      for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
        x="$x -X $pkg.gitVersion=$v -X $pkg.gitMajor=1 -X $pkg.gitMinor=$min -X $pkg.gitTreeState=clean"
      done
      echo "-s -w$x" ;;
  esac
}

wanted=("$@")
first=1
for entry in "${tools[@]}"; do
  IFS='|' read -r name dir pkg out <<<"$entry"
  if ((${#wanted[@]})) && [[ " ${wanted[*]} " != *" $name "* ]]; then continue; fi
  flags=$(ldflags "$name")
  stamp="$bin/.$out.stamp"
  want=$( { go version; cat "$root/tools/$dir/go.mod" "$root/tools/$dir/go.sum"; echo "$flags"; } | sha256sum | cut -d' ' -f1)
  if [[ -x "$bin/$out" && -f "$stamp" && $(cat "$stamp") == "$want" ]]; then
    echo "make tools: $out up to date"
    continue
  fi
  if ((first)); then
    echo "make tools: building from the Go module proxy into .tools/bin; the first build compiles each"
    echo "  tool and its dependencies from source and takes minutes (kube-apiserver the longest);"
    echo "  later runs reuse Go's build cache and the stamps in .tools/bin and take seconds."
    first=0
  fi
  echo "make tools: building $out ($pkg $(modver "$dir" "${pkg%%/cmd/*}" 2>/dev/null || true))"
  start=$(date +%s)
  # Built from a copy of the module files, so a checkout or rebase during the long first build
  # (which briefly removes tools/) does not break it.
  work="$root/.tools/mod/$dir"
  mkdir -p "$work"
  cp "$root/tools/$dir/go.mod" "$root/tools/$dir/go.sum" "$work/"
  (cd "$work" && CGO_ENABLED=0 go build -mod=readonly -trimpath -ldflags "$flags" -o "$bin/$out.tmp.$$" "$pkg")
  mv "$bin/$out.tmp.$$" "$bin/$out"
  echo "$want" > "$stamp"
  echo "make tools: built $out in $(( $(date +%s) - start ))s"
done
