#!/usr/bin/env bash
# Tries each package of build/packages as a new user would, on fresh systems (issue 26), and prints what happened:
#   .deb      `apt-get install ./gpuready_*.deb` in a fresh Debian 12 (debootstrap --variant=minbase, no compiler);
#             `gpuready` runs (exit 0 or 1), its man page, completions and modules are where they belong
#   .tar.gz   unpacked in a random folder of the fresh Debian 12 and of Debian 11 (glibc 2.31), run from another
#             folder: it finds its CUDA module beside it
#   .whl      `pip install` into a fresh venv of the Debian 12 system; `gpuready` from the venv's bin/ sees that venv
#   .zip      unpacked in a random folder, gpuready.exe run under Wine from another folder
#   scripts/packaging/test-packages.sh [PACKAGES_DIR]
# Needs root. The fresh systems are made once (debootstrap) under build/fresh-debian12 and build/debian11
# ($GPUREADY_FRESH12 / $GPUREADY_CHROOT name others); each test works in a copy of what it changes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
pkgs=$(cd "${1:-build/packages}" && pwd)
fresh12=${GPUREADY_FRESH12:-$root/build/fresh-debian12}
deb11=${GPUREADY_CHROOT:-$root/build/debian11}
failures=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

if [[ ! -x $fresh12/usr/bin/apt-get ]]; then
  echo "== making a fresh Debian 12 at $fresh12 (debootstrap --variant=minbase)"
  debootstrap --variant=minbase bookworm "$fresh12" http://deb.debian.org/debian > "$root/build/fresh-debian12.log"
fi
# Each test in a throwaway copy of the fresh system (the .deb and pip change it).
work=$(mktemp -d)
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount -l "$m" 2>/dev/null || true; done
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
system() {  # system NAME FROM: a copy of FROM at $work/NAME with /proc and /dev
  cp -a --one-file-system "$2" "$work/$1"  # not what is mounted inside it (proc, the bind-mounted tree)
  for d in proc dev; do mount --bind "/$d" "$work/$1/$d"; mounts+=("$work/$1/$d"); done
}
in_() { local r=$1; shift; chroot "$r" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

deb=$(ls "$pkgs"/gpuready_*_amd64.deb)
tgz=$(ls "$pkgs"/gpuready-*-linux-x86_64.tar.gz)
zip=$(ls "$pkgs"/gpuready-*-windows-x86_64.zip)
whl=$(ls "$pkgs"/gpuready-*-manylinux_2_31_x86_64.whl)

echo "== .deb in a fresh Debian 12: apt-get install ./$(basename "$deb")"
system deb "$fresh12"
cp "$deb" "$work/deb/tmp/"
if in_ "$work/deb" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/$(basename "$deb")" > "$work/deb.log" 2>&1; then
  pass "apt-get install of the .deb (no recommends: no oneDNN)"
else
  fail "apt-get install: $(tail -5 "$work/deb.log")"
fi
rc=0; in_ "$work/deb" sh -c 'cd /tmp && gpuready' > "$work/deb-run.txt" 2>&1 || rc=$?
if [[ $rc == 0 || $rc == 1 ]] && grep -q . "$work/deb-run.txt"; then pass "gpuready (the doctor) exit $rc: $(grep -m1 -i 'verdict\|ready' "$work/deb-run.txt" | cut -c1-100)"; else fail "gpuready exit $rc: $(head -5 "$work/deb-run.txt")"; fi
ver=$(in_ "$work/deb" gpuready --version 2>&1 || true)
echo "$ver" | sed 's/^/    /'
echo "$ver" | grep -Eq "CUDA module.*built; /usr/(bin/\.\./)?lib/gpuready/libgpuready-cuda.so" && pass "--version finds the CUDA module in /usr/lib/gpuready" || fail "--version: CUDA module not found"
for f in /usr/share/man/man1/gpuready.1.gz /usr/share/bash-completion/completions/gpuready /usr/share/zsh/vendor-completions/_gpuready /usr/share/doc/gpuready/copyright /usr/lib/gpuready/libgpuready-cpu.so; do
  [[ -f $work/deb$f ]] && pass "installed $f" || fail "missing $f"
done
in_ "$work/deb" bash -c 'source /usr/share/bash-completion/completions/gpuready; COMP_WORDS=(gpuready expl); COMP_CWORD=1; _gpuready; echo "${COMPREPLY[*]}"' 2>&1 | grep -qx explain &&
  pass "bash completion: 'gpuready expl<TAB>' -> explain" || fail "bash completion"
out=$(in_ "$work/deb" gpuready bench --device cpu --epochs 1 2>&1 || true)
echo "$out" | grep -qi "libdnnl\|oneDNN\|could not load\|cannot open" && pass "bench --device cpu without oneDNN says what is missing: $(echo "$out" | grep -m1 -i 'libdnnl\|onednn\|load' | cut -c1-120)" ||
  fail "bench --device cpu without oneDNN: $(echo "$out" | head -3)"

echo "== .tar.gz unpacked in a random folder, run from another one"
for sys in "debian12:$fresh12" "debian11:$deb11"; do
  name=${sys%%:*}; from=${sys#*:}
  system "tgz-$name" "$from"
  dir=$(in_ "$work/tgz-$name" mktemp -d /tmp/unpackXXXX)
  tar xzf "$tgz" -C "$work/tgz-$name$dir"
  top=$(ls "$work/tgz-$name$dir")
  glibc=$(in_ "$work/tgz-$name" ldd --version 2>&1 | head -1 | grep -o '[0-9.]*$')
  rc=0; in_ "$work/tgz-$name" sh -c "cd / && $dir/$top/bin/gpuready" > "$work/tgz-$name.txt" 2>&1 || rc=$?
  [[ $rc == 0 || $rc == 1 ]] && pass "$name (glibc $glibc): gpuready from $dir/$top/bin, exit $rc" || fail "$name: exit $rc: $(head -3 "$work/tgz-$name.txt")"
  in_ "$work/tgz-$name" sh -c "cd / && $dir/$top/bin/gpuready --version" 2>&1 | grep -q "CUDA module.*built; $dir/$top/bin/../lib/gpuready/libgpuready-cuda.so" &&
    pass "$name: finds its CUDA module at bin/../lib/gpuready" || fail "$name: CUDA module not found beside it"
  in_ "$work/tgz-$name" sh -c "cd / && $dir/$top/bin/gpuready explain --no-probe 'CUDA driver version is insufficient for CUDA runtime version'" > "$work/tgz-ex.txt" 2>&1 &&
    pass "$name: explain recognises an error" || fail "$name: explain: $(head -3 "$work/tgz-ex.txt")"
done

echo "== .whl: pip install into a fresh venv (Debian 12's python3-venv), gpuready from the venv, not activated"
system whl "$fresh12"
cp "$whl" "$work/whl/tmp/"
in_ "$work/whl" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv python3-numpy' > "$work/whl-apt.log" 2>&1 || fail "apt-get python3-venv"
if in_ "$work/whl" sh -c "python3 -m venv --system-site-packages /opt/env && /opt/env/bin/pip install --no-index /tmp/$(basename "$whl")" > "$work/whl.log" 2>&1; then
  pass "pip install $(basename "$whl")"
else
  fail "pip install: $(tail -5 "$work/whl.log")"
fi
rc=0; in_ "$work/whl" sh -c 'cd /tmp && /opt/env/bin/gpuready probe --json' > "$work/whl-probe.json" 2> "$work/whl-probe.err" || rc=$?
python3 - "$work/whl-probe.json" <<'PY' && pass "the probe from the venv's gpuready sees that venv (found by gpuready's own environment) and its packages" || fail "the venv's gpuready does not see its venv: $(head -c 300 "$work/whl-probe.err")"
import json, sys
s = json.load(open(sys.argv[1]))
envs = s.get("python", [])
env = next((e for e in envs if str(e.get("interpreter", "")).startswith("/opt/env/bin/python")), None)
assert env, [e.get("interpreter") for e in envs]
assert "gpuready's own environment" in env.get("found_by", []), env.get("found_by")
names = [p.get("name") for p in env.get("packages", [])]
print("    venv", env["interpreter"], "found by", env["found_by"], "packages", names)
assert "numpy" in names, names
PY
in_ "$work/whl" sh -c 'cd /tmp && /opt/env/bin/python -m gpuready --version' 2>&1 | grep -q "CUDA module.*built; /opt/env/bin/../lib/gpuready/libgpuready-cuda.so" &&
  pass "python -m gpuready runs it, and it finds its CUDA module in <venv>/lib/gpuready" || fail "python -m gpuready / module in the venv"

echo "== .zip under Wine: unpacked in a random folder, run from another one"
zdir=$(mktemp -d)
(cd "$zdir" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(".")' "$zip")
ztop=$(ls "$zdir")
export WINEPREFIX=$work/wineprefix WINEDEBUG=-all
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
rc=0; (cd / && "$wine" "$zdir/$ztop/gpuready.exe" --version) > "$work/zip.txt" 2>&1 || rc=$?
sed 's/^/    /' "$work/zip.txt" | head -12
[[ $rc == 0 ]] && grep -q "CUDA module.*built; .*gpuready-cuda.dll" "$work/zip.txt" && pass "gpuready.exe --version under Wine finds gpuready-cuda.dll beside it" || fail "gpuready.exe --version: exit $rc"
rc=0; (cd / && "$wine" "$zdir/$ztop/gpuready.exe" explain --no-probe "Could not load dynamic library 'cudart64_110.dll'") > "$work/zip-ex.txt" 2>&1 || rc=$?
[[ $rc == 0 ]] && pass "gpuready.exe explain recognises the walkthrough's error" || fail "gpuready.exe explain: exit $rc $(head -3 "$work/zip-ex.txt")"
rm -rf "$zdir"

echo "== sizes"
(cd "$pkgs" && ls -l -- *.deb *.tar.gz *.zip *.whl | awk '{printf "    %-60s %8.1f MiB\n", $NF, $5 / 1048576}')
echo "== $failures failure(s)"
exit $((failures > 0))
