#!/usr/bin/env bash
# Makes every package of gpuready (issue 26) into build/packages/, from one command:
#   gpuready_<v>_amd64.deb                        Debian 12 (and Ubuntu 24.04) package: cmake --preset default's build
#   gpuready-<v>-linux-x86_64.tar.gz              portable: built with Debian 11's compilers (glibc 2.31), runs from
#                                                 any folder on Ubuntu 20.04+, Debian 11+, and what is as new
#   gpuready-<v>-windows-x86_64.zip               gpuready.exe and gpuready-cuda.dll (cmake --preset mingw's build)
#   gpuready-<v>-py3-none-manylinux_2_31_x86_64.whl, ...-win_amd64.whl   the same executables for pip / pipx / uvx
#
#   scripts/package.sh          build what is missing and package
#   scripts/package.sh test     then try each package as a new user would (scripts/packaging/test-packages.sh)
#
# Debian 12, as root (debootstrap, chroot, bind mounts); installs what it needs with apt. The Debian 11 chroot for the
# portable build is made once under build/debian11 (debootstrap, a few minutes; $GPUREADY_CHROOT names another).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
mode=${1:-package}
out=$root/build/packages
version=$(sed -n 's/^project(gpuready VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
py=/usr/bin/python3  # Debian's, with python3-wheel

need=(debootstrap dpkg-dev python3 python3-wheel g++-mingw-w64-x86-64-posix file)
missing=()
for p in "${need[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "package: installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
rm -rf "$out"
mkdir -p "$out"

step() { echo "== package: $*" >&2; }

# --- 1. Debian package, from the Release build with tests (the build quickstart.sh makes) ---
step "Debian 12 build (build/default)"
cmake --preset default > /dev/null
cmake --build --preset default --target gpuready gpuready_cuda gpuready_cpu gpuready_generated_docs
# Depends: what the executable and the CUDA module link, as dpkg-shlibdeps says (it wants a debian/control beside it).
# The CPU engine's oneDNN and OpenMP stay Recommends (cmake/packaging.cmake).
shl=$(mktemp -d)
mkdir -p "$shl/debian"
printf 'Source: gpuready\n\nPackage: gpuready\nArchitecture: any\n' > "$shl/debian/control"
depends=$(cd "$shl" && dpkg-shlibdeps -O "$root/build/default/src/gpuready" "$root/build/default/src/libgpuready-cuda.so" 2>/dev/null |
          sed -n 's/^shlibs:Depends=//p')
rm -rf "$shl"
[[ -n $depends ]] || { echo "package: dpkg-shlibdeps gave no dependencies" >&2; exit 1; }
step "Depends: $depends"
(cd build/default && cpack -G DEB -D CPACK_DEBIAN_PACKAGE_DEPENDS="$depends" -D CPACK_PACKAGE_DIRECTORY="$out/deb" > /dev/null)
mv "$out"/deb/*.deb "$out"/
rm -rf "$out/deb"

# --- 2. Portable Linux archive, compiled by Debian 11's gcc in a chroot ---
chroot_dir=${GPUREADY_CHROOT:-$root/build/debian11}
if [[ ! -x $chroot_dir/usr/bin/g++ ]]; then
  step "making the Debian 11 chroot $chroot_dir (debootstrap)"
  debootstrap --variant=minbase --include=g++,libpcre2-dev,libzstd-dev,liblzma-dev,zlib1g-dev bullseye "$chroot_dir" \
    http://deb.debian.org/debian > "$root/build/debian11.log"
fi
export GPUREADY_CHROOT=$chroot_dir
# The chroot sees the tree at the same path, and its own path as its root (cmake/debian11-chroot.cmake).
mkdir -p "$chroot_dir$root" "$chroot_dir$(dirname "$chroot_dir")"
[[ -e $chroot_dir$chroot_dir ]] || ln -s / "$chroot_dir$chroot_dir"
mountpoint -q "$chroot_dir$root" || mount --bind "$root" "$chroot_dir$root"
cleanup() { mountpoint -q "$chroot_dir$root" && umount "$chroot_dir$root" || true; }
trap cleanup EXIT
# Debian 12's header-only CLI11, nlohmann_json, fmt and stb, copied in (Debian 11's are too old).
mkdir -p "$chroot_dir/opt/gpuready-headers"
# cp -a keeps the headers' times, so a second run rebuilds nothing.
for h in CLI nlohmann fmt stb; do rm -rf "$chroot_dir/opt/gpuready-headers/$h"; cp -a "/usr/include/$h" "$chroot_dir/opt/gpuready-headers/"; done
mkdir -p build/portable-tools
for cc in gcc g++; do ln -sf "$root/scripts/packaging/chroot-cc.sh" "build/portable-tools/$cc"; done
step "portable build (build/portable, Debian 11's g++ $(chroot "$chroot_dir" g++ -dumpfullversion))"
cmake -S . -B build/portable -G Ninja --toolchain cmake/debian11-chroot.cmake -DCMAKE_BUILD_TYPE=Release \
  -DGPUREADY_BUILD_TESTS=OFF -DGPUREADY_HOST_INCLUDE_DIR="$chroot_dir/opt/gpuready-headers" \
  -DGPUREADY_GENERATED_DOCS_DIR="$root/build/default/generated" > /dev/null
cmake --build build/portable --target gpuready gpuready_cuda
(cd build/portable && cpack -G TGZ -D CPACK_PACKAGE_DIRECTORY="$out/tgz" > /dev/null)
mv "$out"/tgz/*.tar.gz "$out"/
rm -rf "$out/tgz"
# No symbol may need a glibc newer than 2.31 (nor libstdc++/libgcc: they are inside).
for f in build/portable/src/gpuready build/portable/src/libgpuready-cuda.so; do
  newest=$(objdump -T "$f" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
  step "$(basename "$f") needs at most $newest"
  if [[ $(printf '%s\nGLIBC_2.31\n' "$newest" | sort -V | tail -1) != GLIBC_2.31 ]]; then
    echo "package: $f needs $newest, newer than glibc 2.31" >&2
    exit 1
  fi
  if objdump -p "$f" | grep -q 'NEEDED.*libstdc++'; then echo "package: $f links libstdc++ dynamically" >&2; exit 1; fi
done

# --- 3. Windows zip, from the MinGW build (the one scripts/windows-check.sh tests) ---
step "Windows build (build/mingw)"
cmake --preset mingw > /dev/null
cmake --build --preset mingw --target gpuready gpuready_cuda
(cd build/mingw && cpack -G ZIP -D CPACK_PACKAGE_DIRECTORY="$out/zip" > /dev/null)
mv "$out"/zip/*.zip "$out"/
rm -rf "$out/zip"

# --- 4. Wheels: the portable executable (manylinux_2_31) and the Windows one ---
stage=$(mktemp -d)
cmake --install build/portable --prefix "$stage/linux" --strip > /dev/null
cmake --install build/mingw --prefix "$stage/windows" > /dev/null
"$py" scripts/packaging/wheel.py "$stage/linux" "$version" manylinux_2_31_x86_64 "$out"
"$py" scripts/packaging/wheel.py "$stage/windows" "$version" win_amd64 "$out"
rm -rf "$stage"

(cd "$out" && sha256sum -- * > SHA256SUMS && ls -l)
if [[ $mode == test ]]; then
  bash scripts/packaging/test-packages.sh "$out"
fi
