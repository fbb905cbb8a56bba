// Compat: the knowledge tables as typed rows, and the questions every later layer asks of
// them (which driver a CUDA needs on this OS, the newest CUDA a driver runs, which
// architectures a CUDA builds for, a GPU's compute capability by name, a GPU's datasheet
// matrix-multiply peaks, an architecture's per-SM rates). Built once from a Knowledge; a row
// that does not parse is an error naming the table and line, never a guess.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/version.h"
#include "knowledge/knowledge.h"

namespace gpuready::knowledge {

// Which driver column applies. WSL2 runs the Windows driver, so it reads the Windows floors.
enum class DriverOs { linux, windows };

struct CudaDriverRow {
  Version cuda;                        // 12.3
  Version first_release;               // 12.3.0
  std::optional<Version> min_linux;    // 545.23.06
  std::optional<Version> min_windows;  // 545.84 (empty for 13.x: NVIDIA prints N/A)
};

struct MinorCompatRow {
  long cuda_major = 0;
  std::optional<Version> min_linux, min_windows;
};

struct CudaArchRow {
  Version cuda;
  std::set<int> sm;  // 50, 52, ..., 90 (sm_XY as the integer XY)
  int min_sm = 0, max_sm = 0;
};

struct GpuRow {
  std::string name;          // "NVIDIA GeForce GTX 1650"
  Version cc;                // 7.5
  std::string architecture;  // "Turing"
  std::vector<std::uint32_t> pci_device_ids;  // 0x1f91, ... (NVIDIA vendor 0x10de)
};

// The last driver branch that supports an architecture: gpu_driver_branches.csv. Later drivers
// ignore such a GPU ("supported through the NVIDIA 470.xx Legacy drivers").
struct DriverBranchRow {
  std::string architecture;  // "Kepler"
  Version cc_min, cc_max;    // 3.0 .. 3.7
  long last_branch = 0;      // 470
};
// An AMD GPU's gfx target (rocm_gfx.csv): which ROCm releases list it as supported on Linux (and so
// ship kernels for it in rocBLAS, MIOpen and the framework wheels), and the override users set to
// run an unlisted target as its nearest listed one.
struct RocmGfxRow {
  std::string gfx;                         // "gfx1031"
  std::string generation;                  // "RDNA2"
  std::vector<std::string> products;       // "Radeon RX 6700 XT", ...
  std::string kind;                        // instinct | radeon | radeon-pro | apu
  std::optional<Version> first, last;      // first/last ROCm release listing it; no first = never listed
  std::string override_version;            // HSA_OVERRIDE_GFX_VERSION value seen used ("10.3.0"), or ""
  std::string note;
  [[nodiscard]] bool ever_supported() const { return first.has_value(); }
};
// A known break between a framework and one of its Python dependencies that the framework's own
// Requires-Dist does not prevent (python_breaks.csv): torch < 2.3 with NumPy 2, TensorFlow before
// 2.6.5 with protobuf 4.21+, ... Versions are PEP 440 specifier sets.
struct PythonBreakRow {
  std::vector<std::string> packages;  // normalised names, any of which: {"tensorflow", "tensorflow-gpu", ...}
  std::string package_versions;       // "<2.3"
  std::string dependency;             // "numpy"
  std::string dependency_versions;    // ">=2"
  std::string os;                     // "" every OS, or "windows" / "linux"
  std::string symptom, fix, source;
};
// How fresh the tables are: the newest release of each component they know, and when that was
// (freshness.csv). `date` is "" where no dated source was read.
struct FreshnessRow {
  std::string component;  // "pytorch", "tensorflow", "jax", "cuda", "cudnn"
  Version newest;         // 2.14.1
  std::string date;       // "2026-09-30"
  std::string date_kind;  // "released" | "seen-by" (the release existed by then)
  std::string notes;
};
// The first driver that knows an architecture: the GA driver of the first CUDA that builds for it.
struct GpuDriverFloor {
  Version cuda;    // 12.8: the first CUDA whose nvcc builds sm_120
  Version driver;  // 570.26 (its toolkit's Linux or Windows GA driver)
  [[nodiscard]] long branch() const { return driver.major(); }
};
struct CudnnRow {
  Version cudnn;             // 8.9
  long cuda_major = 0;
  std::optional<Version> cuda_min;
  std::string linux_soname, windows_dll;
  std::vector<std::string> sub_libraries_linux;
  int min_sm = 0;
};

struct LibraryNameRow {
  std::string library;       // "cudart"
  long cuda_major = 0;
  std::vector<std::string> linux_sonames;  // "libcudart.so.11.0" (10.x lists one per minor)
  std::vector<std::string> windows_dlls;   // "cudart64_110.dll"
};

struct TensorflowRow {
  Version version;           // 2.10.0
  std::string os;            // "linux" | "windows" | "macos"
  std::string device;        // "gpu" | "cpu"
  std::string package;       // "tensorflow" | "tensorflow-gpu"
  Version python_min, python_max;
  std::optional<Version> cuda, cudnn;
  std::string numpy;         // pip constraint as the wheel states it: "~=1.19.2"
  bool and_cuda = false;     // `pip install tensorflow[and-cuda]` brings CUDA and cuDNN
  std::set<int> sm;          // architectures the wheels have kernels for; empty = not in the tables
  bool ptx = false;          // PTX for the newest listed architecture (JIT for newer GPUs)
  int line = 0;
};

struct PytorchRow {
  Version version;           // 2.11.0
  std::string variant;       // "cu130", "cpu", "rocm7.2"
  std::optional<Version> cuda;
  Version python_min, python_max;
  std::string cudnn;         // bundled cuDNN, as the release matrix writes it: "9.17.1.4"
  std::set<int> sm;          // architectures with kernels; empty = not in the tables
  bool ptx = false;          // PTX for the newest listed architecture (JIT for newer GPUs)
  std::string pypi_default;  // "yes" | "no" | "" (unknown)
  std::string index_url;
  std::string torchvision, torchaudio;  // "0.26.0", "0.25" (minor only), "" unknown
  std::vector<std::string> platforms;   // "linux", "windows", "macos"
  int line = 0;
};

struct JaxRow {
  Version version;           // 0.6.2
  std::string pip_extra;     // "cuda12", "cuda12_pip", "cuda11_cudnn86"
  long cuda_major = 0;
  std::optional<Version> cuda_min, cudnn_min;
  Version python_min, python_max;
  std::optional<Version> min_driver_linux;  // as the JAX docs give it ("525", "525.60.13")
  std::optional<Version> min_sm;            // 5.2 (the floor the JAX docs state)
  std::set<int> sm;          // architectures jaxlib / the plugin ship kernels for (.bazelrc); empty = not read
  bool ptx = false;          // PTX for the newest listed architecture
  std::vector<std::string> platforms;
  int line = 0;
};

// A known failure as users paste it (explain): error_signatures.csv.
struct ErrorSignatureRow {
  std::string code;     // "dso.tf-dll-missing"
  std::string title;
  std::string kind;     // "failure", "harmless" (needs no action) or "generic" (says only that something failed)
  std::vector<std::string> root;  // what it stands for: vendor codes, conditions; "$1" = the library group 1 names
  std::string pattern;  // regular expression (PCRE2 / ECMAScript subset), matched case-insensitively per line
  std::string example, variant;  // real reports' texts (the tests match them)
  std::string cause;
  std::vector<std::string> fix;  // the table's " ;; "-separated lines
  std::string context;           // words ("a|b") one of which the paste must contain for the row to count, or ""
  std::string notes;
  [[nodiscard]] bool harmless() const { return kind == "harmless"; }
};

// A vendor status code (explain): error_codes.csv. CUDA runtime and driver, NVRTC, nvJitLink,
// cuDNN, cuBLAS, cuSOLVER, cuFFT, cuSPARSE, cuRAND, NCCL, HIP, HSA, rocBLAS, hipBLAS, MIOpen.
struct ErrorCodeRow {
  std::string family;  // "cuda-runtime", "cudnn", "nccl", "hip", ...
  std::string name;    // as the vendor's header spells it: "cudaErrorNoKernelImageForDevice"
  std::optional<long> number;      // its value in the newest release
  std::vector<long> also_numbers;  // values older releases gave the same name (CUDA <= 10.0, cuDNN 8)
  std::string message;             // the library's own text for it (cudaGetErrorString ...), or ""
  std::string condition;           // the usual root cause (a condition word), or ""
  std::string meaning;
  std::vector<std::string> fix;
  std::string notes;
};

// A library's file names and what their version part means (explain): library_stems.csv.
struct LibraryStemRow {
  std::string stem;        // "cudart"
  std::string component;   // "CUDA Runtime"
  std::string vendor, kind;  // kind: cuda, cuda-math, cudnn, nccl, tensorrt, cutensor, driver, rocm, runtime, zlib, msvc, framework
  std::string linux_pattern, windows_pattern;  // "libcudart.so.{v}", "cudart64_{v}.dll" ("" none on that OS)
  std::string version_rule;  // cuda-major, cuda-major-minor-digits, component-major, cudnn-major, tensorrt-major, rocm-soname, none
  std::string linux_install, windows_install;  // how to get it, steps separated by " ; "
  std::string notes;
};

// One concrete library file name and the release it belongs to: library_versions.csv.
struct LibraryVersionRow {
  std::string stem, os, file_name, component_version, cuda, notes;
};

// " ;; "-separated lines (a table's fix column) -> the lines, trimmed, empty ones dropped.
std::vector<std::string> split_fix(std::string_view cell, std::string_view separator = ";;");

// A GPU's matrix-multiply peaks as its datasheet gives them: gpu_peaks.csv. TFLOP/s, dense (not
// the "with sparsity" figures), FP32 accumulate for tf32/fp16/bf16. nullopt: the datasheet gives
// no figure (the GPU lacks that math, or nothing is published); `notes` says which.
struct GpuPeakRow {
  std::string name;  // exactly as NVML reports it: "NVIDIA H200", "Tesla T4"
  std::optional<double> fp32, tf32, fp16, bf16;
  std::string document;  // the datasheet or whitepaper the figures come from
  std::string notes;
  int line = 0;
};

// FLOP per clock per SM for one compute capability: arch_throughput.csv. Only rates that are the
// same for every product of the capability. nullopt: not computed (it differs between products
// or is not established; `notes` says why); 0: the capability has no such math ("none").
struct ArchThroughputRow {
  Version cc;  // 9.0
  std::optional<int> fp32, tf32, fp16, bf16;
  std::string notes;
  int line = 0;
};

class Compat {
 public:
  // Typed view of k. nullopt with *error ("pytorch.csv line 12: python_min \"3.x\" is not a version").
  static std::optional<Compat> from(const Knowledge& k, std::string* error);
  // The embedded tables' view (throws std::logic_error if they do not convert: a build defect).
  static const Compat& embedded();

  // Driver that runs everything in CUDA major.minor `cuda` on that OS (the toolkit's own
  // floor). For 13.x on Windows NVIDIA prints N/A: the Linux floor's branch (580) stands in.
  [[nodiscard]] std::optional<Version> full_floor(const Version& cuda, DriverOs os) const;
  // Driver floor for any minor of `major` through minor-version compatibility (CUDA >= 11).
  [[nodiscard]] std::optional<Version> compat_floor(long major, DriverOs os) const;
  // The floor a framework build on CUDA `cuda` needs: the minor-version-compatibility floor
  // of its major from CUDA 11 on, the toolkit's own floor before.
  [[nodiscard]] std::optional<Version> required_driver(const Version& cuda, DriverOs os) const;
  // Newest CUDA major.minor whose full floor the driver meets; nullopt when none.
  [[nodiscard]] std::optional<Version> newest_cuda(const Version& driver, DriverOs os) const;
  // What "newer than the tables" is measured against: the newest CUDA release of the driver table and
  // the highest Linux driver floor in it (13.4, 615.71.09). Empty versions when the table is empty.
  struct DriverTableReach {
    Version cuda, driver;
  };
  [[nodiscard]] DriverTableReach driver_table_reach() const;
  [[nodiscard]] const CudaDriverRow* cuda_row(const Version& cuda) const;  // by major.minor
  [[nodiscard]] const CudaArchRow* arch_row(const Version& cuda) const;    // by major.minor
  // The newest CUDA release of a major the tables know (e.g. 12 -> 12.9).
  [[nodiscard]] const CudaArchRow* newest_arch_row(long major) const;
  // A GPU by product name: case, spaces and the "NVIDIA"/"GeForce" words do not matter.
  [[nodiscard]] const GpuRow* gpu_by_name(const std::string& name) const;
  // Every GPU a name as people type it stands for: the row with exactly these words ("RTX 4090",
  // "GTX1650", "Tesla V100-SXM2-16GB"), else every row holding all of its words as whole words
  // ("A100" is the five A100 boards, never "RTX A1000"; "a100 80gb" two of them).
  [[nodiscard]] std::vector<const GpuRow*> gpus_matching(const std::string& name) const;
  // The compute capability of such a name when all its rows agree on it; nullopt when none
  // matches or they differ (then `candidates` lists them, for the user to pick).
  [[nodiscard]] std::optional<Version> gpu_cc(const std::string& name,
                                              std::vector<const GpuRow*>* candidates = nullptr) const;
  // A driver typed with fewer numbers than NVIDIA's ("450.80") is the release the tables know by
  // those numbers (450.80.02); any other version is returned as typed.
  [[nodiscard]] Version driver_release(const Version& typed) const;
  // A GPU by PCI device id (vendor 0x10de), for a GPU seen on the bus without a driver.
  [[nodiscard]] const GpuRow* gpu_by_pci_id(std::uint32_t device_id) const;
  // Table names that contain each word of `name` (as part of a word: "GTX 16" finds the
  // GTX 1650s), for "did you mean"; at most `limit`.
  [[nodiscard]] std::vector<std::string> gpu_names_like(const std::string& name, size_t limit) const;
  // An architecture name for a compute capability ("Turing" for 7.5), "" if none known.
  [[nodiscard]] std::string architecture_of(const Version& cc) const;
  // The cuDNN row that describes release `cudnn` ("9.1.0.70") for CUDA `cuda_major`: its own
  // major.minor, else the newest older release of the same major the tables have (*exact false:
  // then the answer is the nearest documented one, and callers say so). nullptr when none.
  [[nodiscard]] const CudnnRow* cudnn_row_for(const Version& cudnn, long cuda_major, bool* exact = nullptr) const;
  // The next documented release after `release` (by major.minor) of the same cuDNN major for CUDA
  // `cuda_major`: the oldest row newer than it; nullptr when none.
  [[nodiscard]] const CudnnRow* cudnn_after(const Version& release, long cuda_major) const;
  // The first driver that supports a GPU of compute capability `cc`: the GA driver of the oldest
  // CUDA in the tables whose architectures include it exactly. nullopt when even the oldest CUDA in
  // the tables builds for it (the floor is older than the tables) or none does.
  [[nodiscard]] std::optional<GpuDriverFloor> gpu_driver_floor(const Version& cc, DriverOs os) const;
  // The last driver branch for a GPU of compute capability `cc`; nullptr when its architecture is
  // still supported by current drivers.
  [[nodiscard]] const DriverBranchRow* gpu_driver_ceiling(const Version& cc) const;
  [[nodiscard]] const LibraryNameRow* library(const std::string& library, long cuda_major) const;
  // The datasheet peaks of a GPU by its exact NVML name ("NVIDIA H100 80GB HBM3"; no folding: the
  // name tells SXM from PCIe and NVL boards apart); nullptr when the table has no row for it.
  [[nodiscard]] const GpuPeakRow* gpu_peak(const std::string& nvml_name) const;
  // The per-SM rates of a compute capability (by major.minor); nullptr when none are known.
  [[nodiscard]] const ArchThroughputRow* arch_throughput_row(const Version& cc) const;

  std::vector<CudaDriverRow> cuda_driver;  // newest first
  std::vector<MinorCompatRow> minor_compat;
  std::vector<CudaArchRow> cuda_arch;      // newest first
  std::vector<GpuRow> gpus;
  std::vector<CudnnRow> cudnn;             // newest first
  std::vector<DriverBranchRow> driver_branches;
  std::vector<RocmGfxRow> rocm_gfx;
  // A gfx target's row by name ("gfx1031", any case); nullptr when the table has none.
  [[nodiscard]] const RocmGfxRow* rocm_gfx_row(std::string_view gfx) const;
  std::vector<FreshnessRow> freshness;
  std::vector<PythonBreakRow> python_breaks;
  [[nodiscard]] const FreshnessRow* freshness_of(const std::string& component) const;
  std::vector<LibraryNameRow> library_names;
  std::vector<TensorflowRow> tensorflow;   // newest first
  std::vector<PytorchRow> pytorch;         // newest first
  std::vector<JaxRow> jax;                 // newest first
  std::vector<ErrorSignatureRow> error_signatures;  // table order: specific before generic
  std::vector<ErrorCodeRow> error_codes;
  std::vector<LibraryStemRow> library_stems;
  std::vector<LibraryVersionRow> library_versions;
  std::vector<GpuPeakRow> gpu_peaks;
  std::vector<ArchThroughputRow> arch_throughput;  // newest first
};

// Whether kernels built for `sm` (with PTX of the newest when `ptx`) run on a GPU of sm `g`.
enum class KernelMatch { cubin, ptx, none };
// An exact or lower same-major cubin runs (binary compatibility: sm_86 code on 8.9); PTX of an
// older architecture is compiled at first start for a newer GPU.
KernelMatch kernels_for(const std::set<int>& sm, bool ptx, int g);

// sm number for a compute capability: 7.5 -> 75, 12.0 -> 120.
int sm_of(const Version& cc);
// "7.5" from 75.
std::string cc_of_sm(int sm);
// "sm_60 sm_70 sm_80": an architecture list as evidence and plans write it.
std::string sm_list_words(const std::set<int>& sm);

}  // namespace gpuready::knowledge
