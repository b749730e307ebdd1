#!/bin/sh
# Start or stop a one-node Kubernetes cluster on loopback for trying the
# kubernetes backend by hand (as root): etcd, kube-apiserver,
# kube-controller-manager, containerd and kubelet, every file under DIR.
# The first start builds kube-apiserver, kube-controller-manager and
# kubelet v1.37.2 (tens of minutes on 2 cores; cached afterwards under
# $AIRLOCK_K8S_CACHE, default /var/cache/airlock-k8s).
#
#   scripts/k8s-cluster.sh start [DIR] [--image ARCHIVE]...  # prints the kubernetes.hcl to use
#   scripts/k8s-cluster.sh stop [DIR]
#   scripts/k8s-cluster.sh image ARCHIVE [ROOT.img]   # sandbox image airlock.local/airlock:dev
#
# Needs: apt-get install etcd-server containerd runc iproute2 e2fsprogs debootstrap
set -eu
cd "$(dirname "$0")/.."
cmd=${1:-}
[ $# -gt 0 ] && shift
dir=/tmp/airlock-k8s-cluster
case "${1:-}" in --*|"") ;; *) dir=$1; shift ;; esac
case "$cmd" in
image) exec go run ./internal/k8stest/cmd/k8s-cluster image "$dir" "$@" ;;
start|stop) exec go run ./internal/k8stest/cmd/k8s-cluster "$cmd" "$dir" "$@" ;;
*) echo "usage: $0 start|stop [DIR] [--image ARCHIVE]... | image ARCHIVE [ROOT.img]" >&2; exit 2 ;;
esac
