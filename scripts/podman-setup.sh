#!/usr/bin/env bash
# Installs what the container executor's tests need (docs/executors.md, "Docker and Podman"):
# Podman with runc (crun refuses a hybrid cgroup v1 host), and busybox-static, from which the tests
# build their images locally (no registry is needed). The tests start their own
# `podman system service` with a containers.conf of their own (runc, no default ulimits):
# packages/executor-container/test/support/podman.ts. Root only; a no-op when all is there.
set -euo pipefail
missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || [ -x /usr/sbin/runc ] || missing+=(runc)
dpkg -s busybox-static >/dev/null 2>&1 || missing+=(busybox-static)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
podman --version
