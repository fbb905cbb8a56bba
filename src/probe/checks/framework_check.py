# gpuready's framework check (compiled into gpuready; docs/frameworks.md).
#
# Imports one deep-learning framework in this interpreter, the way the user's own programs would,
# and reports what it saw as one JSON line on stdout, after the marker below:
#   python -u - pytorch|tensorflow|jax   < this file
# gpuready runs it in a child with a timeout, from an empty folder (probe/framework_checks.cpp).
# It reports facts only; gpuready judges them (doctor/rules_deep.cpp). Each stage is announced on
# stderr first, so a hang or a crash says where it stopped. Python 3.6 and later.
import importlib
import json
import math
import os
import re
import sys
import time
import traceback

MARK = "gpuready-framework-check: "
STAGE = "gpuready-check-stage: "

# Never import from the folder this runs in: a torch.py or tensorflow/ there would shadow the real one.
sys.path[:] = [p for p in sys.path if p not in ("", ".", os.getcwd())]

FRAMEWORK = sys.argv[1] if len(sys.argv) > 1 else ""
R = {"framework": FRAMEWORK, "python": sys.version.split()[0], "stage": "start"}
T0 = time.time()

# The loaded libraries worth reporting (file names, lower case): NVIDIA's, by their name's start
# (libcudnn_graph.so.9, cudart64_110.dll, nvcuda.dll), and the frameworks' CUDA parts (libtorch_cuda.so,
# xla_cuda_plugin.so) -- not libicudata.
GPU_LIBRARY = re.compile(r"^(lib)?(cuda|cudnn|cublas|nccl|nvrtc|nvjitlink|cufft|curand|cusolver|cusparse|cupti|"
                         r"nvidia-ml|nvml|nvtx|nvtoolsext|nvinfer|cufile|nvshmem|nvcuda|zlibwapi)|[_.-]cuda")


def stage(name):
    R["stage"] = name
    sys.stderr.write(STAGE + name + "\n")
    sys.stderr.flush()


def clean(o):
    """JSON the reader can take: no NaN or Infinity, no lone surrogates (undecodable bytes in a path)."""
    if isinstance(o, str):
        return o.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {clean(k): clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [clean(v) for v in o]
    return o


def text(e):
    return (type(e).__name__ + ": " + str(e))[:4000]


def record_error(where, e):
    # The traceback goes to stderr with everything the framework printed: gpuready explains it.
    traceback.print_exc()
    sys.stderr.flush()
    R["error"] = {"stage": where, "message": text(e)}


def loaded_files():
    """Every file mapped into this process (Linux), or every module loaded (Windows)."""
    out = []
    if sys.platform.startswith("linux"):
        with open("/proc/self/maps", errors="surrogateescape") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6:
                    p = parts[5].strip()
                    if p.startswith("/") and p not in out:
                        out.append(p)
    elif sys.platform == "win32":
        import ctypes
        from ctypes import wintypes
        k32 = ctypes.WinDLL("kernel32", use_last_error=True)
        psapi = ctypes.WinDLL("psapi", use_last_error=True)
        k32.GetCurrentProcess.restype = wintypes.HANDLE
        psapi.EnumProcessModules.argtypes = [wintypes.HANDLE, ctypes.POINTER(wintypes.HMODULE), wintypes.DWORD,
                                             ctypes.POINTER(wintypes.DWORD)]
        k32.GetModuleFileNameW.argtypes = [wintypes.HMODULE, wintypes.LPWSTR, wintypes.DWORD]
        mods = (wintypes.HMODULE * 4096)()
        needed = wintypes.DWORD()
        if psapi.EnumProcessModules(k32.GetCurrentProcess(), mods, ctypes.sizeof(mods), ctypes.byref(needed)):
            buf = ctypes.create_unicode_buffer(32768)
            for i in range(min(needed.value // ctypes.sizeof(wintypes.HMODULE), 4096)):
                if k32.GetModuleFileNameW(mods[i], buf, 32768):
                    out.append(buf.value)
    return out


def library_version(path):
    """The version a loaded library reports of itself (its own query function), or None."""
    import ctypes
    base = os.path.basename(path).lower()
    stem = base.split(".so")[0].split(".dll")[0]
    try:
        lib = ctypes.CDLL(path)  # already loaded: the same handle, nothing new is loaded
        if stem in ("libcudnn", "cudnn64_8", "cudnn64_9") or stem.startswith("cudnn64_"):
            lib.cudnnGetVersion.restype = ctypes.c_size_t
            return {"query": "cudnnGetVersion", "value": int(lib.cudnnGetVersion())}
        v = ctypes.c_int()
        if stem == "libcudart" or stem.startswith("cudart64_"):
            if lib.cudaRuntimeGetVersion(ctypes.byref(v)) == 0:
                return {"query": "cudaRuntimeGetVersion", "value": v.value}
        elif stem == "libcuda" or stem == "nvcuda":
            if lib.cuDriverGetVersion(ctypes.byref(v)) == 0:
                return {"query": "cuDriverGetVersion", "value": v.value}
        elif stem == "libnccl":
            if lib.ncclGetVersion(ctypes.byref(v)) == 0:
                return {"query": "ncclGetVersion", "value": v.value}
        elif stem == "libcublas" or stem.startswith("cublas64_"):
            parts = []
            for prop in (0, 1, 2):  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
                if lib.cublasGetProperty(prop, ctypes.byref(v)) != 0:
                    return None
                parts.append(str(v.value))
            return {"query": "cublasGetProperty", "text": ".".join(parts)}
    except Exception:
        return None
    return None


def gpu_libraries():
    out = []
    for p in loaded_files():
        base = os.path.basename(p).lower()
        if not (".so" in base or base.endswith(".dll") or base.endswith(".dylib")):
            continue
        if not GPU_LIBRARY.search(base):
            continue
        entry = {"path": p}
        v = library_version(p)
        if v:
            entry["version"] = v
        out.append(entry)
        if len(out) >= 200:
            break
    return out


def op_result(name, run, to_list, cpu_fn, gpu_fn):
    """Runs one operation on the CPU and on the GPU; records the largest difference relative to the
    largest CPU value and the GPU's time (first call, which includes loading its kernels)."""
    stage("gpu-op " + name)
    op = {"name": name}
    try:
        ref = to_list(cpu_fn())
        t = time.time()
        got = to_list(run(gpu_fn))
        op["gpu_ms"] = (time.time() - t) * 1000.0
        bad = sum(1 for x in got if not math.isfinite(x))
        if len(ref) != len(got):
            op["error"] = "the GPU result has %d values, the CPU's %d" % (len(got), len(ref))
        elif bad:  # max() would skip a NaN that is not first: count them
            op["error"] = "the GPU result has %d values that are not finite (NaN or Inf); the CPU's has none" % bad
        else:
            scale = max(abs(x) for x in ref) or 1.0
            op["max_error"] = max(abs(a - b) for a, b in zip(ref, got)) / scale
            op["values"] = len(ref)
    except Exception as e:
        traceback.print_exc()
        sys.stderr.flush()
        op["error"] = text(e)
    R.setdefault("ops", []).append(op)


# The operands: multiples of 1/8 in [-1, 1], so every product and sum below is exact in fp32 (and in
# TF32): a correct GPU gives the CPU's result bit for bit; rounding differences stay far below 1e-4.
def pattern_values(n, mul, add):
    return [(((i * mul + add) % 17) - 8) / 8.0 for i in range(n)]


N = 256  # matmul N x N x N
CONV_X = (8, 3, 32, 32)  # NCHW
CONV_W = (16, 3, 3, 3)   # OIHW


def import_framework(module):
    """Imports it as the user's code would, timed; its version."""
    stage("import")
    t = time.time()
    m = importlib.import_module(module)
    R["import_seconds"] = time.time() - t
    R["version"] = str(m.__version__)
    stage("build")
    return m


def check_pytorch():
    torch = import_framework("torch")
    R["built_cuda"] = torch.version.cuda
    R["built_hip"] = getattr(torch.version, "hip", None)
    try:
        if torch.backends.cudnn.is_available():
            R["built_cudnn"] = ".".join(str(x) for x in torch._C._cudnn.getCompileVersion())
    except Exception:
        pass
    try:
        flags = torch._C._cuda_getArchFlags()
        R["arch_list"] = flags.split() if flags else []
    except Exception:
        pass
    stage("devices")
    avail = bool(torch.cuda.is_available())
    R["gpu_available"] = avail
    if not avail:
        if torch.version.cuda:
            try:
                torch.cuda.init()  # says why: no driver, a driver too old, no device
            except Exception as e:
                R["gpu_error"] = text(e)
                sys.stderr.write(R["gpu_error"] + "\n")
        return
    devices = []
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        devices.append({"index": i, "name": p.name, "capability": "%d.%d" % (p.major, p.minor),
                        "memory_bytes": int(p.total_memory)})
    R["devices"] = devices
    try:
        R["arch_list"] = list(torch.cuda.get_arch_list())
    except Exception:
        pass
    try:
        v = torch.backends.cudnn.version()
        if v:
            R["runtime_cudnn"] = int(v)
    except Exception:
        pass
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    def tensor(shape, mul, add):
        n = 1
        for s in shape:
            n *= s
        return torch.tensor(pattern_values(n, mul, add), dtype=torch.float32).reshape(shape)

    def to_list(x):
        return x.detach().to("cpu").reshape(-1).tolist()

    def on_gpu(fn):
        out = fn("cuda")
        torch.cuda.synchronize()
        return out

    a, b = tensor((N, N), 7, 1), tensor((N, N), 13, 5)
    op_result("matmul", on_gpu, to_list, lambda: a @ b, lambda d: a.to(d) @ b.to(d))
    x, w = tensor(CONV_X, 5, 3), tensor(CONV_W, 11, 2)
    conv = torch.nn.functional.conv2d
    op_result("conv2d", on_gpu, to_list, lambda: conv(x, w, padding=1), lambda d: conv(x.to(d), w.to(d), padding=1))


def check_tensorflow():
    tf = import_framework("tensorflow")
    try:
        info = dict(tf.sysconfig.get_build_info())
        R["built_cuda"] = info.get("cuda_version")
        R["built_cudnn"] = info.get("cudnn_version")
        R["cuda_build"] = bool(info.get("is_cuda_build", False))
        caps = info.get("cuda_compute_capabilities")
        if caps:
            R["arch_list"] = [str(c) for c in caps]
    except Exception:
        R["cuda_build"] = bool(tf.test.is_built_with_cuda())
    stage("devices")
    gpus = tf.config.list_physical_devices("GPU")
    R["gpu_available"] = bool(gpus)
    if not gpus:
        return
    devices = []
    for i, g in enumerate(gpus):
        try:
            tf.config.experimental.set_memory_growth(g, True)
        except Exception:
            pass
        d = {"index": i, "name": g.name}
        try:
            det = tf.config.experimental.get_device_details(g)
            d["name"] = det.get("device_name", g.name)
            cc = det.get("compute_capability")
            if cc:
                d["capability"] = "%d.%d" % tuple(cc)
        except Exception:
            pass
        devices.append(d)
    R["devices"] = devices
    try:
        tf.config.experimental.enable_tensor_float_32_execution(False)
    except Exception:
        pass

    def tensor(shape, mul, add):
        n = 1
        for s in shape:
            n *= s
        return tf.reshape(tf.constant(pattern_values(n, mul, add), dtype=tf.float32), shape)

    def to_list(x):
        return [float(v) for v in tf.reshape(x, [-1]).numpy().tolist()]

    def on(dev, fn):
        with tf.device(dev):
            return tf.identity(fn())

    a, b = tensor((N, N), 7, 1), tensor((N, N), 13, 5)
    op_result("matmul", lambda fn: fn(), to_list, lambda: on("/CPU:0", lambda: tf.linalg.matmul(a, b)),
              lambda: on("/GPU:0", lambda: tf.linalg.matmul(a, b)))
    # NHWC and HWIO: TensorFlow's layouts.
    x = tf.transpose(tensor(CONV_X, 5, 3), [0, 2, 3, 1])
    w = tf.transpose(tensor(CONV_W, 11, 2), [2, 3, 1, 0])
    op_result("conv2d", lambda fn: fn(), to_list, lambda: on("/CPU:0", lambda: tf.nn.conv2d(x, w, 1, "SAME")),
              lambda: on("/GPU:0", lambda: tf.nn.conv2d(x, w, 1, "SAME")))


def check_jax():
    jax = import_framework("jax")
    import jax.numpy as jnp
    try:
        import jaxlib
        R["jaxlib"] = str(getattr(jaxlib, "__version__", "") or jaxlib.version.__version__)
    except Exception:
        pass
    stage("devices")
    try:
        gpus = jax.devices("gpu")
    except Exception as e:
        gpus = []
        R["gpu_error"] = text(e)
        sys.stderr.write(R["gpu_error"] + "\n")
    try:
        R["default_backend"] = jax.default_backend()
    except Exception:
        pass
    try:
        from jax._src.lib import cuda_versions as cv  # None without a CUDA plugin
    except Exception:
        cv = None
    if cv is not None:
        for key, fn in (("built_cuda_int", "cuda_runtime_build_version"), ("runtime_cuda_int", "cuda_runtime_get_version"),
                        ("built_cudnn_int", "cudnn_build_version"), ("runtime_cudnn", "cudnn_get_version"),
                        ("driver_cuda_int", "cuda_driver_get_version")):
            try:
                R[key] = int(getattr(cv, fn)())
            except Exception:
                pass
    R["gpu_available"] = bool(gpus)
    if not gpus:
        return
    R["devices"] = [{"index": i, "name": str(getattr(d, "device_kind", d)),
                     "capability": str(getattr(d, "compute_capability", "") or "")} for i, d in enumerate(gpus)]
    cpu = jax.devices("cpu")[0]
    hi = jax.lax.Precision.HIGHEST

    import numpy as np  # jax's own dependency: host arrays are put on a device without compiling anything

    def tensor(shape, mul, add, dev):
        n = 1
        for s in shape:
            n *= s
        return jax.device_put(np.asarray(pattern_values(n, mul, add), dtype=np.float32).reshape(shape), dev)

    def to_list(x):
        return [float(v) for v in jax.device_get(x).reshape(-1).tolist()]

    def on(dev, fn):
        return fn(dev).block_until_ready()

    def matmul(dev):
        return jnp.matmul(tensor((N, N), 7, 1, dev), tensor((N, N), 13, 5, dev), precision=hi)

    def conv(dev):
        return jax.lax.conv_general_dilated(tensor(CONV_X, 5, 3, dev), tensor(CONV_W, 11, 2, dev), (1, 1),
                                            [(1, 1), (1, 1)], precision=hi)

    op_result("matmul", lambda fn: fn(), to_list, lambda: on(cpu, matmul), lambda: on(gpus[0], matmul))
    op_result("conv2d", lambda fn: fn(), to_list, lambda: on(cpu, conv), lambda: on(gpus[0], conv))


CHECKS = {"pytorch": check_pytorch, "tensorflow": check_tensorflow, "jax": check_jax}


def main():
    try:
        import faulthandler  # a crash inside the framework prints the Python stack to stderr
        faulthandler.enable()
    except Exception:
        pass
    check = CHECKS.get(FRAMEWORK)
    if check is None:
        R["error"] = {"stage": "start", "message": "unknown framework %r" % FRAMEWORK}
    else:
        try:
            check()
        except BaseException as e:  # SystemExit and KeyboardInterrupt from a package are failures too
            record_error(R["stage"], e)
        # Also after a failed import: what was loaded before it failed, and from where, is the evidence.
        stage("libraries")
        try:
            R["libraries"] = gpu_libraries()
        except Exception as e:
            R["libraries_error"] = text(e)
    R["seconds"] = time.time() - T0
    stage("done")
    sys.stdout.write("\n" + MARK + json.dumps(clean(R), allow_nan=False) + "\n")
    sys.stdout.flush()


main()
