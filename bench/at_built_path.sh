# Sourced by the device scripts (bench/device_h200.sh, verify_h200.sh, device_security.sh): the test
# binaries embed the absolute paths of the checkout they were built in, so make this checkout appear
# at that path ($GPUREADY_BUILT_AT, default /work/main) and cd there.
built_at=${GPUREADY_BUILT_AT:-/work/main}
if [[ $(pwd -P) != "$built_at" ]]; then
  mkdir -p "$(dirname "$built_at")"
  [[ -e $built_at ]] || ln -s "$(pwd -P)" "$built_at"
fi
cd "$built_at" || exit 1
