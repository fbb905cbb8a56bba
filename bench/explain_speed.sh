#!/usr/bin/env bash
# Times `gpuready explain` on a 1 MiB log. typical: realistic TensorFlow/Keras lines with the
# walkthrough's missing-DLL error as the last line. dense: the worst case, 1 MiB made of the explain
# corpus's real texts repeated (every line an error report, many signatures tried per line).
# Prints each run's milliseconds (whole process) and the median.
#   bench/explain_speed.sh [path/to/gpuready] [runs] [typical|dense]
set -euo pipefail
exe=${1:-build/default/src/gpuready}
runs=${2:-5}
kind=${3:-typical}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [[ $kind == dense ]]; then
python3 - "$log" "$(dirname "$0")/../tests/fixtures/explain_corpus" <<'PY'
import glob, json, sys
texts = [json.loads(l)["text"] for f in sorted(glob.glob(sys.argv[2] + "/*.jsonl")) for l in open(f) if l.strip()]
out, size, i = [], 0, 0
while size < (1 << 20):
    out.append(texts[i % len(texts)])
    size += len(out[-1]) + 1
    i += 1
open(sys.argv[1], "w").write("\n".join(out)[: 1 << 20])
PY
else
python3 - "$log" <<'PY'
import random, sys
random.seed(1)
base = ["2026-11-30 10:00:0%d.123 I tensorflow/core/common_runtime/gpu/gpu_device.cc:1510] Created device "
        "/job:localhost/replica:0/task:0/device:GPU:0 with 78911 MB memory",
        "Epoch 3/10 1875/1875 [==============================] - 10s 5ms/step - loss: 0.0412 - accuracy: 0.9871",
        '  File "/opt/app/train.py", line 42, in <module>',
        "W0000 00:00:1732960000.123456   12345 cuda_executor.cc:1015] successful NUMA node read from SysFS had "
        "negative value (-1)"]
lines, size = [], 0
while size < (1 << 20) - 300:
    line = random.choice(base).replace("%d", str(random.randint(0, 9)))
    lines.append(line)
    size += len(line) + 1
lines.append("2021-06-01 W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
             "library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
fi
times=()
for ((i = 0; i < runs; i++)); do
  s=$(date +%s%N)
  "$exe" explain --no-probe --file "$log" >/dev/null
  e=$(date +%s%N)
  times+=("$(((e - s) / 1000000))")
done
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {for (i=1;i<=NR;i++) printf "run %d ms\n", a[i]; printf "median %d ms\n", a[int((NR+1)/2)]}'
