# Fills the model cache for the workers, then writes the marker that says so.
# The download Job runs it as `bash -c SCRIPT download COMMAND [ARGS...]` (download.command, download.args).
# Env (set by the chart): MODEL_DOWNLOAD_MARKER, MODEL_DOWNLOAD_IDENTITY, and NIM_MODEL_PROFILE when a
# profile is pinned. A cache that already holds this identity is left alone, so a re-run (every
# `helm upgrade`, every Argo CD sync) costs a file test.
set -euo pipefail
if [ -f "$MODEL_DOWNLOAD_MARKER" ]; then
  echo "the cache already holds $MODEL_DOWNLOAD_IDENTITY ($MODEL_DOWNLOAD_MARKER): nothing to download"
  exit 0
fi
if [ -n "${NIM_MODEL_PROFILE:-}" ]; then
  echo "downloading pinned profile $NIM_MODEL_PROFILE for $MODEL_DOWNLOAD_IDENTITY"
  "$@" --profiles "$NIM_MODEL_PROFILE"
else
  echo "downloading the profile this node's GPUs select for $MODEL_DOWNLOAD_IDENTITY"
  "$@"
fi
mkdir -p "${MODEL_DOWNLOAD_MARKER%/*}"
printf '%s\n' "$MODEL_DOWNLOAD_IDENTITY" > "$MODEL_DOWNLOAD_MARKER.tmp"
mv -f "$MODEL_DOWNLOAD_MARKER.tmp" "$MODEL_DOWNLOAD_MARKER"
echo "model download complete: $MODEL_DOWNLOAD_MARKER"
