#!/bin/sh
# Runs job.yaml as SHARDS pods against TARGET_URL, all starting together LEAD seconds from now,
# then collects each pod's JSON result and merges them into one report:
#   run-job.sh TARGET_URL [SHARDS] [LEAD_SECONDS]           (needs kubectl and a local microbench)
#   run-job.sh --render TARGET_URL [SHARDS] [LEAD_SECONDS]  (prints the manifest it would apply)
# Writes shard-I.json for each pod, merged.json and report.html in the current directory.
set -eu
render_only=false
[ "${1:-}" = "--render" ] && { render_only=true; shift; }
[ $# -ge 1 ] || { echo "usage: $0 [--render] TARGET_URL [SHARDS] [LEAD_SECONDS]" >&2; exit 1; }
url=$1 shards=${2:-4} lead=${3:-30}
here=$(dirname "$0")
start_at=$(( $(date +%s) + lead ))
render() {
  sed -e "s|\"START_AT\"|\"$start_at\"|" -e "s|\"TARGET_URL\"|\"$url\"|" \
      -e "s|^\(  completions:\) 4 |\1 $shards |" -e "s|^\(  parallelism:\) 4 |\1 $shards |" \
      -e "s|value: \"4\"  # = SHARDS|value: \"$shards\"  # = SHARDS|" "$here/job.yaml"
}
if $render_only; then render; exit 0; fi
render | kubectl apply -f -
kubectl wait --for=condition=complete --timeout=3600s job/microbench
i=0
while [ "$i" -lt "$shards" ]; do
  pod=$(kubectl get pods -l "job-name=microbench,batch.kubernetes.io/job-completion-index=$i" -o jsonpath='{.items[0].metadata.name}')
  kubectl logs "$pod" > "shard-$i.json"
  i=$((i + 1))
done
microbench merge shard-*.json --json merged.json --html report.html
