// Parser for PyTorch's generated torch/version.py: "__version__ = '2.11.0+cu130'",
// "cuda: Optional[str] = '13.0'" (older: "cuda = '11.8'"), "hip", "rocm", "git_version".
// Pure and non-throwing; read by the Python collector instead of importing torch.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuready::parse {

struct TorchVersion {
  std::optional<std::string> version;  // __version__
  bool cuda_present = false;           // the file has a "cuda" variable at all
  std::optional<std::string> cuda;     // "13.0"; nullopt when None (a CPU or ROCm build)
  std::optional<std::string> hip;      // ROCm builds: "6.2.41133-dd7f95766"
  std::optional<std::string> rocm;
  std::optional<std::string> git_version;
  [[nodiscard]] bool empty() const { return !version && !cuda_present && !hip; }
};

TorchVersion torch_version(std::string_view text);

// The build a torch release is, as its wheel index names it ("cu130", "cpu", "rocm6.2"): the version's local
// label ("2.11.0+cu130"), else its CUDA ("13.0" -> "cu130"), else "rocm" for a HIP build, else "cpu" when the
// build says it has no CUDA (`says_cuda`: torch.version.cuda was read and is None); "" when nothing says.
std::string torch_variant(std::string_view version, const std::optional<std::string>& cuda, bool hip, bool says_cuda);

}  // namespace gpuready::parse
