#!/usr/bin/env bash
# Compiles gpuready's device code (gpu/device/gpuready.cu) into the fatbin the CUDA module embeds
# (gpu/device/gpuready.fatbin) and records what it was made from (gpu/device/gpuready.fatbin.sources).
#   scripts/build-fatbin.sh           rebuild both (after changing a device source)
#   scripts/build-fatbin.sh --check   exit 1 when a recorded source changed since, or when this
#                                     nvcc rebuilds different bytes; 77 when no CUDA 11.8 nvcc is here
#                                     (only the sources are checked then)
# The toolkit is CUDA 11.8 on purpose (Debian 12 non-free: apt install nvidia-cuda-toolkit, or
# NVCC=/path/to/nvcc of 11.8): cubins of an 11.x toolkit load on every driver from R450 (CUDA 11.0)
# on, and 11.8 is the newest 11.x, with SASS up to sm_90. gpu/device/README.md says why each flag.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

out=gpu/device/gpuready.fatbin
manifest=gpu/device/gpuready.fatbin.sources
sources=(gpu/device/gpuready.cu gpu/device/shared.h src/verify/test_values.h scripts/build-fatbin.sh)
# SASS for every architecture from Maxwell (sm_50) to Hopper (sm_90), Jetson's (53, 62, 72, 87)
# included; PTX of the newest, which the driver compiles for any later GPU (Blackwell on).
sass=(50 52 53 60 61 62 70 72 75 80 86 87 89 90)
ptx=90

check=0
[[ ${1:-} == --check ]] && check=1

# 1. The recorded sources: their hashes now against the manifest.
status=0
if [[ $check == 1 ]]; then
  if [[ ! -f $manifest ]]; then
    echo "build-fatbin: $manifest is missing" >&2
    exit 1
  fi
  while read -r kind hash path; do
    [[ $kind == sha256 ]] || continue
    now=$(sha256sum "$path" 2>/dev/null | cut -d' ' -f1 || true)
    if [[ $now != "$hash" ]]; then
      echo "build-fatbin: $path changed since $out was built (run scripts/build-fatbin.sh with CUDA 11.8's nvcc)" >&2
      status=1
    fi
  done <"$manifest"
  [[ $status == 0 ]] || exit 1
fi

# 2. The compiler.
nvcc=${NVCC:-}
if [[ -z $nvcc ]]; then
  for c in /usr/lib/nvidia-cuda-toolkit/bin/nvcc /usr/local/cuda-11.8/bin/nvcc; do
    [[ -x $c ]] && nvcc=$c && break
  done
fi
if [[ -z $nvcc ]] || ! "$nvcc" --version 2>/dev/null | grep -q "release 11\.8,"; then
  if [[ $check == 1 ]]; then
    echo "build-fatbin: sources match $manifest; no CUDA 11.8 nvcc here to rebuild the bytes (set NVCC)" >&2
    exit 77
  fi
  echo "build-fatbin: needs CUDA 11.8's nvcc (apt install nvidia-cuda-toolkit from Debian 12 non-free, or set NVCC)" >&2
  exit 1
fi
# Its host compiler only preprocesses here (no host code is kept); 11.8 takes GCC <= 11 or clang <= 14.
ccbin=""
for c in g++-11 clang++-14 g++-10; do
  command -v "$c" >/dev/null && ccbin=$c && break
done
[[ -n $ccbin ]] || { echo "build-fatbin: needs g++-11 or clang++-14 as nvcc 11.8's host compiler" >&2; exit 1; }
# The bytes are compared only with the toolchain they were recorded with: another host compiler may
# preprocess the same source into different device code.
if [[ $check == 1 ]]; then
  recorded=$(awk '$1 == "ccbin" {print $2}' "$manifest")
  if [[ $recorded != "$ccbin" ]]; then
    echo "build-fatbin: sources match $manifest; it was built with host compiler ${recorded:-unknown}, here is $ccbin (bytes not compared)" >&2
    exit 77
  fi
fi

flags=(-std=c++17 -O3 -Igpu -Isrc -fatbin -Xfatbin=-compress=false)
for a in "${sass[@]}"; do flags+=(-gencode "arch=compute_$a,code=sm_$a"); done
flags+=(-gencode "arch=compute_$ptx,code=compute_$ptx")

target=$out
[[ $check == 1 ]] && target=$(mktemp) && trap 'rm -f "$target"' EXIT
"$nvcc" -ccbin "$ccbin" "${flags[@]}" -o "$target" gpu/device/gpuready.cu

if [[ $check == 1 ]]; then
  if ! cmp -s "$target" "$out"; then
    echo "build-fatbin: $nvcc builds a different $out from the same sources" >&2
    exit 1
  fi
  echo "build-fatbin: $out matches its sources and rebuilds byte for byte" >&2
  exit 0
fi

{
  echo "# Written by scripts/build-fatbin.sh; its --check (ctest fatbin_sources) compares these with the tree."
  echo "nvcc $("$nvcc" --version | grep -o 'release [0-9.]*, V[0-9.]*')"
  echo "flags ${flags[*]}"
  echo "ccbin $ccbin"
  for s in "${sources[@]}"; do echo "sha256 $(sha256sum "$s" | cut -d' ' -f1) $s"; done
  echo "sha256 $(sha256sum "$out" | cut -d' ' -f1) $out"
} >"$manifest"
echo "build-fatbin: wrote $out ($(stat -c %s "$out") bytes) and $manifest" >&2
