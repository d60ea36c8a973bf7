# Holds a worker in its init container until the download Job has written the marker (gated mode).
set -euo pipefail
until [ -f "$MODEL_DOWNLOAD_MARKER" ]; do
  if [ "$SECONDS" -ge "$MODEL_DOWNLOAD_TIMEOUT_SECONDS" ]; then
    echo "gave up after ${SECONDS}s: $MODEL_DOWNLOAD_MARKER is missing, so the model-download Job has not finished; check it with kubectl get jobs" >&2
    exit 1
  fi
  echo "waiting for the model download (${SECONDS}s): $MODEL_DOWNLOAD_MARKER"
  sleep 15
done
echo "model download complete: $MODEL_DOWNLOAD_MARKER"
